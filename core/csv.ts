// The request rows a load run writes (load/artillery/run.ts, writeRequestRows: the columns of the
// earliest load engine's CSV, kept so that older files still read) are read by the report's throughput chart and the tests: one line splitter.

/** Splits one CSV line as Go's encoding/csv writes it (a field with a comma or a quote is quoted, a quote doubled). */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out;
}
