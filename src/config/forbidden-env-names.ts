// Environment variable names a repository may never set for its test runs (test.env, a test
// command's assignments): they would reach the loader, the interpreter, git, or look like a secret.
/** Names a repository config may never set: they change what runs or where from. */
export const FORBIDDEN_ENV_NAMES =
  /^(PATH|HOME|LD_.*|DYLD_.*|NODE_OPTIONS|PYTHONSTARTUP|PYTHONHOME|BASH_ENV|ENV|GIT_.*|SSH_.*|.*TOKEN.*|.*SECRET.*|.*PASSWORD.*|.*_KEY)$/i;
