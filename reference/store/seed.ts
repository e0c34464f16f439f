// Deterministic seed from --seed and --scale. It always creates the ids of the reference target
// manifest (fixtures/targets/reference.json), so that the suite can run against it unchanged.
import { readFileSync } from 'node:fs';
import { ensureFilterIndexes, openDb, type Db } from './db.ts';
import { EXPERIMENT_STATUSES } from '../../contracts/index.ts';
import { seededRandom } from '../../core/random.ts';
import { contractTyper } from './contract-types.ts';
import type { ManifestFile } from '../../core/manifest.ts';

/** The reference target's manifest as written: the ids the seed must create (core/manifest.ts). */
type Manifest = Pick<ManifestFile, 'gates' | 'experiments' | 'triggers'>;

const MANIFEST = JSON.parse(readFileSync(new URL('../../fixtures/targets/reference.json', import.meta.url), 'utf8')) as Manifest;
const EXPERIMENT_IDS = MANIFEST.experiments.map((e) => (typeof e === 'string' ? e : e.id));

// Fixed clock for seeded data: the same seed gives the same database on any day.
const SEED_EPOCH = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

const ID_TYPES = ['userID', 'stableID', 'companyID'];
const LAYERS = ['layer_checkout', 'layer_search', 'layer_onboarding', null];
const TEAMS = ['team_growth', 'team_core', 'team_mobile', null];
const APPS = ['app_web', 'app_ios', 'app_android'];
const CREATORS = [
  ['u_ada', 'Ada Lovelace'],
  ['u_alan', 'Alan Turing'],
  ['u_grace', 'Grace Hopper'],
  ['u_edsger', 'Edsger Dijkstra'],
  ['u_barbara', 'Barbara Liskov'],
];
const TAGS = ['checkout', 'pricing', 'mobile', 'growth', 'search', 'q3', 'holdout', 'ux'];

/** The seeded generator (core/random.ts) with the draws the seed needs: varied, reproducible data. */
export function prng(seed: number) {
  const next = seededRandom(seed);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}

export function makeGate(id: string, i: number) {
  const t = SEED_EPOCH - (i + 1) * DAY;
  return {
    id,
    name: id.replace(/_/g, ' '),
    description: i % 2 ? '' : `Seeded gate ${id}`,
    idType: 'userID',
    lastModifierID: 'u_ada',
    lastModifiedTime: t,
    lastModifierName: 'Ada Lovelace',
    lastModifierEmail: 'ada@example.com',
    creatorID: 'u_ada',
    createdTime: t,
    creatorName: 'Ada Lovelace',
    creatorEmail: i % 3 ? 'ada@example.com' : null,
    targetApps: [],
    holdoutIDs: [],
    tags: ['seed'],
    team: i % 2 ? 'team_core' : null,
    isEnabled: i % 2 === 0,
    status: i % 2 ? 'Launched' : 'In Progress',
    rules: [],
    checksPerHour: 100 * (i + 1),
    type: i % 2 ? 'PERMANENT' : 'TEMPORARY',
    typeReason: 'NONE',
    reviewSettings: { requiredReview: false, allowedReviewers: [] },
    measureMetricLifts: false,
    owner: { ownerID: 'u_ada', ownerName: 'Ada Lovelace', ownerType: 'USER', ownerEmail: 'ada@example.com' },
    monitoringMetrics: [],
  };
}

function makeExperiment(id: string, i: number, r: ReturnType<typeof prng>) {
  const created = SEED_EPOCH - r.int(180) * DAY - r.int(DAY);
  const status = EXPERIMENT_STATUSES[i % EXPERIMENT_STATUSES.length];
  const [creatorID, creatorName] = r.pick(CREATORS);
  const started = status === 'setup' ? null : created + DAY;
  const tags = TAGS.filter(() => r.next() < 0.3);
  const exp: Record<string, unknown> = {
    id,
    name: `Experiment ${i}`,
    description: `Seeded experiment ${i}`,
    idType: r.pick(ID_TYPES),
    lastModifierID: creatorID,
    lastModifierName: creatorName,
    lastModifierEmail: i % 4 ? `${creatorID}@example.com` : null,
    lastModifiedTime: created + DAY,
    createdTime: created,
    creatorID,
    creatorName,
    creatorEmail: i % 5 ? `${creatorID}@example.com` : null,
    targetApps: [r.pick(APPS)],
    holdoutIDs: [],
    tags,
    status,
    // The seed's own story of each status (a decision launches a group, a running or unstarted
    // experiment has no end): a status the spec drops is simply never drawn.
    launchedGroupID: status === 'decision_made' ? `grp_${i}_test` : null, // spec-literal: the seed's story of a status
    startTime: started,
    endTime: status === 'active' || status === 'setup' ? null : created + 15 * DAY, // spec-literal: the seed's story of a status
    layerID: r.pick(LAYERS),
    hypothesis: 'The change improves the primary metric.',
    primaryMetrics: [{ name: 'conversion', type: 'user' }],
    primaryMetricTags: [],
    secondaryMetrics: [],
    secondaryMetricTags: [],
    groups: [
      { name: 'Control', id: `grp_${i}_control`, size: 50, parameterValues: { enabled: false }, description: 'Control group' },
      { name: 'Test', id: `grp_${i}_test`, size: 50, parameterValues: { enabled: true }, description: 'Test group' },
    ],
    allocation: 100,
    duration: 14,
    targetingGateID: i % 3 ? '' : 'gate_cc_alpha',
    defaultConfidenceInterval: '95',
    bonferroniCorrection: i % 2 === 0,
    decisionReason: status === 'decision_made' ? 'Shipped test' : null, // spec-literal: the seed's story of a status
    decisionTime: status === 'decision_made' ? created + 16 * DAY : null, // spec-literal: the seed's story of a status
    healthChecks: status === 'active' ? [{ name: 'SRM', status: 'WAITING', description: 'Sample ratio mismatch' }] : [],
    healthCheckStatus: status === 'active' ? 'WAITING' : 'PASSED',
    inlineTargetingRulesJSON: '{}',
  };
  if (i % 2 === 0) exp.owner = { ownerType: 'USER', ownerName: creatorName };
  return { exp, team: r.pick(TEAMS) };
}

function makePipeline(id: string, i: number, phaseIDs: string[]) {
  return {
    id,
    name: `Release pipeline ${i}`,
    creatorID: 'u_grace',
    createdTime: SEED_EPOCH - (200 - i) * DAY,
    lastModifierID: 'u_grace',
    phases: phaseIDs.map((pid, p) => ({
      id: pid,
      name: `Phase ${p + 1}`,
      timeIntervalMs: 3_600_000 * (p + 1),
      // Every second phase waits for a review, so that a trigger can be paused and unpaused (spec 4.10)
      // after one skip: a conformance run then moves a trigger at most 2 phases (a skip, and one more
      // when it is not paused), and the 48 phases of fixtures/targets/reference.json last 24 runs.
      requiredReview: p % 2 === 1,
      rules: [
        {
          id: `${pid}_rule`,
          name: `Rollout ${p + 1}`,
          conditions: [{ type: 'country', targetValue: ['US'], operator: 'any' }],
          environments: p % 2 ? ['production'] : null,
        },
      ],
    })),
  };
}

export function makeTrigger(id: string, pipeline: ReturnType<typeof makePipeline>, gateID: string) {
  const first = pipeline.phases[0];
  return {
    id,
    releasePipelineID: pipeline.id,
    creatorID: 'u_grace',
    createdTime: SEED_EPOCH,
    description: `Trigger of ${pipeline.id}`,
    gateID,
    dynamicConfigID: '',
    lastModifierID: 'u_grace',
    lastModifierName: 'Grace Hopper',
    status: 'IN_PROGRESS',
    currentPhase: first.name,
    currentPhaseID: first.id,
    currentPhaseEndTime: SEED_EPOCH + first.timeIntervalMs,
    actions: [{ type: 'STARTED', timeMs: SEED_EPOCH, phaseID: first.id, actorID: 'u_grace', actorName: 'Grace Hopper' }],
  };
}

// What the seed makes, in the types the contract gives each field (contract-types.ts).
const asGate = contractTyper('Gate');
const asExperiment = contractTyper('Experiment');
const asPipeline = contractTyper('ReleasePipeline');
const asTrigger = contractTyper('Trigger');

export function seed(db: Db, opts: { seed: number; scale: number }): void {
  const r = prng(opts.seed);
  const already = db.prepare("SELECT value FROM meta WHERE key = 'seeded'").get();
  if (already) return ensureFilterIndexes(db); // a persistent --db keeps its data across restarts
  const insertGate = db.prepare('INSERT INTO gates (id, doc) VALUES (?, ?)');
  const insertExp =
    db.prepare(`INSERT INTO experiments (id, rank, created_time, status, layer_id, id_type, team_id, target_app_id, creator_name, creator_id, doc)
    VALUES (@id, @rank, @created_time, @status, @layer_id, @id_type, @team_id, @target_app_id, @creator_name, @creator_id, @doc)`);
  const insertTag = db.prepare('INSERT INTO experiment_tags (experiment_id, tag) VALUES (?, ?)');
  const insertPipeline = db.prepare('INSERT INTO pipelines (id, created_time, doc) VALUES (?, ?, ?)');
  const insertTrigger = db.prepare('INSERT INTO triggers (id, doc) VALUES (?, ?)');
  db.transaction(() => {
    const gateIds = [...MANIFEST.gates, ...Array.from({ length: 8 }, (_, i) => `gate_seed_${i + 1}`)];
    gateIds.forEach((id, i) => insertGate.run(id, JSON.stringify(asGate(makeGate(id, i)))));

    // One experiment at a time, in PRNG order, so that seeding 100,000 never holds them all in memory
    // (the whole array left the server at 320 MB resident, npm run reliability:memory). Rows get a
    // provisional negative rank, then their rank in the list order is set in one statement.
    const experimentCount = Math.max(opts.scale, MANIFEST.experiments.length);
    for (let i = 0; i < experimentCount; i++) {
      const id = i < EXPERIMENT_IDS.length ? EXPERIMENT_IDS[i] : `exp_${String(i).padStart(6, '0')}`;
      const { exp: e, team } = makeExperiment(id, i, r);
      insertExp.run({
        id,
        rank: -1 - i,
        created_time: e.createdTime,
        status: e.status,
        layer_id: e.layerID,
        id_type: e.idType,
        team_id: team,
        target_app_id: (e.targetApps as string[])[0],
        creator_name: e.creatorName,
        creator_id: e.creatorID,
        doc: JSON.stringify(asExperiment(e)),
      });
      for (const tag of e.tags as string[]) insertTag.run(id, tag);
    }
    // rank: position in the list order, createdTime descending, then id (BINARY collation: the ids are ASCII).
    db.exec(`UPDATE experiments SET rank = o.position FROM
      (SELECT id, row_number() OVER (ORDER BY created_time DESC, id) - 1 AS position FROM experiments) AS o
      WHERE experiments.id = o.id`);

    const pipelines = MANIFEST.triggers.map((t, i) => makePipeline(t.releasePipelineID, i, t.phaseIDs));
    for (let i = pipelines.length; i < 25; i++)
      pipelines.push(
        makePipeline(
          `rp_seed_${i + 1}`,
          i,
          [1, 2, 3].map((p) => `ph_seed_${i + 1}_${p}`),
        ),
      );
    for (const p of pipelines) insertPipeline.run(p.id, p.createdTime, JSON.stringify(asPipeline(p)));
    MANIFEST.triggers.forEach((t, i) =>
      insertTrigger.run(t.id, JSON.stringify(asTrigger(makeTrigger(t.id, pipelines[i], MANIFEST.gates[i % MANIFEST.gates.length])))),
    );
    ensureFilterIndexes(db);
    db.prepare("INSERT INTO meta (key, value) VALUES ('seeded', ?)").run(JSON.stringify(opts));
  })();
}

const images = new Map<string, Buffer>();

/**
 * An in-memory database as `seed` makes it, copied from an image of the first one this process made
 * with these options: for a process that builds many servers (reference/host.ts), which then seeds
 * each size once. 50,000 experiments: about 1.3 s of seeding, 0.16 s to copy their 90 MB image. The
 * seed is deterministic (a seeded generator, fixed dates), so a copy is what a new seed would be; the
 * images stay for the life of the process.
 */
export function seededCopy(opts: { seed: number; scale: number }): Db {
  const key = `${opts.seed}:${opts.scale}`;
  const image = images.get(key);
  if (image) return openDb(image);
  const db = openDb(':memory:');
  seed(db, opts);
  images.set(key, db.serialize());
  return db;
}
