from .roots import digit_sum, digital_root
