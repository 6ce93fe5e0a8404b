// Which environment variables hold secrets: one rule for the bot dropping them from its
// own environment and for the scrubber that removes their values from what it posts.

// DATABASE_URL: a connection string carries the database password.
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE|CREDENTIAL|DATABASE_URL/i;
/** Names that point at a secret or count something rather than hold a secret: the sandbox needs the paths to hide those files. */
const NOT_A_SECRET = /_(PATH|FILE|DIR|TOKENS)$/i;

/** A variable whose value is a secret worth hiding (values under 8 characters would match everywhere). */
export function isSecretVariable(name: string, value: string | undefined): value is string {
  return value !== undefined && value.length >= 8 && SECRET_NAME.test(name) && !NOT_A_SECRET.test(name);
}
