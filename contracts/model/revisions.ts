// Revisions of the spec of the kinds real API changelogs record, each written as an edit of the spec's
// words found through the contract model (never a value typed here), with the clause it must move. The
// model's tests apply each to the committed spec and check the build and spec:diff follow; the revision
// self-test (contracts/revisions-selftest.ts) checks that the suite then fails a server that keeps the
// old revision on that clause and passes the reference, which follows the contract. The precedents are
// public changelogs: Dynatrace's API changelog ("Increased max value in the consecutiveRuns field", "New
// possible values in the ... field", "New field in the ... object"), Mozilla Glean's metric-name limit
// of 30 characters documented where 20 was enforced (bug 1580707), and reworded success texts.
import type { ContractModel } from './contract-model.ts';

export interface Revision {
  name: string;
  /** The kind of change, as a changelog would say it. */
  kind: string;
  /** The spec's text with the revision applied; throws when the model gives nothing to revise. */
  apply(spec: string, model: ContractModel): string;
  /** The clause a server keeping the old revision must fail on; none for a revision that only adds uncovered clauses. */
  moves?: string;
  /** A clause id prefix the revision adds (a new operation's clauses), uncovered until a test names them. */
  adds?: string;
  /** Whether the suite checks what it adds without a hand edit (a field its generic checks read). */
  checked?: boolean;
}

function replaceAll(spec: string, from: string, to: string): string {
  if (!spec.includes(from)) throw new Error(`the spec has no "${from}" to revise`);
  return spec.split(from).join(to);
}

const bodyField = (model: ContractModel, op: string, field: string) => {
  const f = model.operations.find((o) => o.id === op)?.body.find((x) => x.name === field);
  if (!f) throw new Error(`the model has no ${op} body field ${field}`);
  return f;
};

export const REVISIONS: Revision[] = [
  {
    name: 'name-length-lowered',
    kind: 'a length limit lowered (in the operation table and part 8)',
    moves: 'metrics.create.name.length',
    apply(spec, model) {
      const f = bodyField(model, 'createMetric', 'name');
      const lowered = Math.floor((f.maxLength as number) / 2);
      return replaceAll(
        replaceAll(spec, `Length ${f.minLength} to ${f.maxLength}`, `Length ${f.minLength} to ${lowered}`),
        `length ${f.minLength} to ${f.maxLength}`,
        `length ${f.minLength} to ${lowered}`,
      );
    },
  },
  {
    name: 'description-length-raised',
    kind: 'a maximum length raised',
    moves: 'metrics.create.description.maxLength',
    apply(spec, model) {
      const f = bodyField(model, 'createMetric', 'description');
      const raised = (f.maxLength as number) * 2;
      return replaceAll(
        replaceAll(spec, `Maximum length ${f.maxLength}`, `Maximum length ${raised}`),
        `maximum length ${f.maxLength}`,
        `maximum length ${raised}`,
      );
    },
  },
  {
    name: 'overrides-count-lowered',
    kind: 'a maximum count changed',
    moves: 'overrides.patch.overrides.maxItems',
    apply(spec, model) {
      const f = model.operations.find((o) => o.id === 'patchExperimentOverrides')?.body.find((x) => x.name === 'overrides');
      if (!f?.maxItems) throw new Error('the model has no maximum count of overrides');
      const lowered = Math.floor(f.maxItems / 4);
      return replaceAll(spec, `at most ${f.maxItems} items`, `at most ${lowered} items`);
    },
  },
  {
    name: 'create-message-reworded',
    kind: 'a success message reworded',
    moves: 'metrics.create.message',
    apply(spec, model) {
      const text = model.operations.find((o) => o.id === 'createMetric')?.message?.text;
      if (!text) throw new Error('the model has no message of createMetric');
      return replaceAll(spec, `\`${text}\``, `\`${text.replace(/\.$/, '')} (revised).\``);
    },
  },
  {
    name: 'directionality-default-changed',
    kind: 'a default changed',
    moves: 'metrics.create.directionality.default',
    apply(spec, model) {
      const f = bodyField(model, 'createMetric', 'directionality');
      const other = f.allowed?.find((v) => v !== f.default);
      if (!f.default || !other) throw new Error('the model has no default of directionality with another allowed value');
      return replaceAll(spec, `default \`${f.default}\``, `default \`${other}\``);
    },
  },
  {
    name: 'metric-type-removed',
    kind: 'an allowed value removed',
    moves: 'metrics.create.type.enum',
    apply(spec, model) {
      const allowed = bodyField(model, 'createMetric', 'type').allowed ?? [];
      if (allowed.length < 3) throw new Error('the model has too few metric types to remove one');
      const gone = allowed[allowed.length - 2];
      return replaceAll(spec, `\`${gone}\`, `, '');
    },
  },
  {
    name: 'gate-field-type-changed',
    kind: "a field's type changed",
    moves: 'gate.field.checksPerHour',
    apply(spec, model) {
      const field = model.resources.find((r) => r.section === '2.2')?.fields.find((f) => f.name === 'checksPerHour');
      if (!field) throw new Error('the model has no gate field checksPerHour');
      const other = field.type === 'string' ? 'integer' : 'string';
      return replaceAll(spec, `| checksPerHour | ${field.type} |`, `| checksPerHour | ${other} |`);
    },
  },
  {
    name: 'metric-field-added',
    kind: 'a new optional request field',
    adds: 'metrics.create.body.field.sampleRate',
    checked: true,
    apply(spec, model) {
      const last = model.operations.find((o) => o.id === 'createMetric')?.body.at(-1);
      if (!last) throw new Error('the model has no body of createMetric');
      const row = spec.split('\n')[last.line - 1];
      return replaceAll(spec, row, `${row}\n| sampleRate | number | no | Share of units sampled |`);
    },
  },
  {
    name: 'archive-operation-added',
    kind: 'a new operation',
    adds: 'archiveExperiment.',
    apply(spec) {
      const section = [
        '### 4.12 Archive experiment',
        '',
        '`PUT /console/v1/experiments/{id}/archive`',
        '',
        '- Path: `id` string (required).',
        '- Body: `reason` string (required).',
        '- Response: message `Experiment archived successfully.`; `data` is the Experiment (2.5).',
        '',
        '## 5. Authentication',
      ].join('\n');
      return replaceAll(spec, '## 5. Authentication', section);
    },
  },
];
