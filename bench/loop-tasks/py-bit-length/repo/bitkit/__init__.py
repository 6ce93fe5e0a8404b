from .bits import bit_length, fits
