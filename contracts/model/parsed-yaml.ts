// A YAML text parsed with its comments kept (yaml's Document) once per process, handed out as a copy to
// edit: the clause catalogue is 120 KB, and the model's tests and spec:diff build from it many times.
import { type Document, parseDocument } from 'yaml';

const parsed = new Map<string, Document>();

/** A copy of `text` parsed as a YAML document, free to edit. */
export function parsedOnce(text: string): Document {
  let doc = parsed.get(text);
  if (!doc) {
    doc = parseDocument(text);
    parsed.set(text, doc);
  }
  return doc.clone();
}
