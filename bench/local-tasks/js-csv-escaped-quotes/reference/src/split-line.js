// One CSV record into its fields. Commas inside double quotes do not split; inside quotes
// a doubled quote stands for one quote (RFC 4180).
export function splitLine(line, delimiter = ",") {
  const fields = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === delimiter) {
      fields.push(field);
      field = "";
    } else {
      field += ch;
    }
  }
  if (quoted) throw new Error("unterminated quoted field");
  fields.push(field);
  return fields;
}
