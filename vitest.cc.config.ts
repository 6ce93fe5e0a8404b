import base from "./vitest.config.ts";
export default { ...base, test: { ...base.test, setupFiles: ["/work/scratch/s50/cc-setup.ts", ...(base.test?.setupFiles as string[])] } };
