#!/usr/bin/env bash
# The steps of the composite action (action.yml at the repository root) that are ours, not GitHub's:
# action.yml runs `action.sh mask`, `check`, `install`, `run` and `verdict` in that order, each a step of its own,
# with the action's inputs in the environment (INPUT_*), never in the script text, and the key only as
# CONSOLE_API_KEY. `install` packs the directory this script is in (the action's own checkout) as the
# npm package users install and installs it apart; `run` runs its command in the caller's workspace,
# whatever repository the calling workflow checked out; paths the caller gives (the manifest...) are
# relative to that workspace. scripts/ci/action.test.ts runs these steps as action.yml
# declares them. docs/ci.md shows the action from a server repository's side.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

usage() {
  cat <<'HELP'
usage: scripts/ci/action.sh mask|check|install|run|verdict [--help]

The steps of the console-conformance GitHub action (action.yml), run by GitHub in this order:

  mask     masks CONSOLE_API_KEY in the job's log (::add-mask::), before any other step runs
  check    checks the inputs, resolves the caller's paths against GITHUB_WORKSPACE and writes them
           to GITHUB_OUTPUT (manifest, observations, history, reports, artifact, load, npm-key)
  install  packs the action's checkout (npm pack) and installs the package into a folder of its own
           under RUNNER_TEMP; writes the path of its `console-conformance` command to GITHUB_OUTPUT
  run      runs `console-conformance verify` (CC_COMMAND) in the caller's workspace against
           INPUT_BASE_URL (empty: the bundled reference server) and writes exit-code, verdict and
           report-path to GITHUB_OUTPUT and the verdict to GITHUB_STEP_SUMMARY; with INPUT_CANDIDATE_URL it runs
           `console-conformance candidate` instead (INPUT_BASE_URL the current); it exits 0 whatever
           the verdict, so that the reports are uploaded before the verdict step fails the job
  verdict  one annotation for CC_EXIT_CODE, then exits with it (empty: 3, the suite never ran)

Inputs (environment): INPUT_BASE_URL, INPUT_MANIFEST, INPUT_STRICT, INPUT_READ_ONLY, INPUT_SKIP_LOAD,
INPUT_PROFILE, INPUT_ALLOW_REMOTE_LOAD, INPUT_DEADLINE, INPUT_OBSERVATIONS_BASELINE, INPUT_HISTORY,
INPUT_REPORTS_DIR, INPUT_ARTIFACT_NAME, INPUT_CANDIDATE_URL, INPUT_CANDIDATE_MANIFEST, INPUT_CANDIDATE_WRITES,
INPUT_FREEZE_OPEN, INPUT_CANDIDATE_LATENCY, INPUT_CANDIDATE_MIN_EFFECT (action.yml describes each); CONSOLE_API_KEY and CONSOLE_CANDIDATE_API_KEY (the keys,
never arguments); GitHub's own GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP.

Exit codes: check 0 or 3 (a bad input, with a one-line reason); run 0 (the verdict is in its
outputs); verdict the suite's: 0 pass, 1 contract failure, 2 performance regression, 3 not carried out.
HELP
}

# A bad input: one annotation line naming it, exit 3.
fail() {
  echo "::error title=console-conformance::$1"
  exit 3
}

output() { echo "$1=$2" >>"$GITHUB_OUTPUT"; }

bool() { # name value
  case "$2" in
    true | false) ;;
    *) fail "input $1 must be true or false, got \"$2\"" ;;
  esac
}

# A path the caller gave: absolute, or relative to its workspace (its repository's checkout).
from_workspace() {
  case "$1" in
    /*) echo "$1" ;;
    *) echo "${GITHUB_WORKSPACE:?GITHUB_WORKSPACE is not set}/$1" ;;
  esac
}

# A manifest input (VALUE) resolved against the workspace, which must hold it, into MANIFEST_PATH; empty
# when not given, unless URL is set (then REQUIRED is the reason). The file's absence is told after NO_FILE.
# (A global, not an echo: fail's one line must reach the log, not a command substitution.)
manifest_input() { # value url no-file required
  MANIFEST_PATH=""
  if [[ -n "$1" ]]; then
    MANIFEST_PATH="$(from_workspace "$1")"
    [[ -f "$MANIFEST_PATH" ]] || fail "$3 $1 (${MANIFEST_PATH}): commit it in your repository and check the repository out (actions/checkout) before this action"
  elif [[ -n "$2" ]]; then
    fail "$4"
  fi
}

mask() {
  # GitHub masks secrets.* already. A key from elsewhere is masked here for the rest of the job; GitHub
  # has printed the action's inputs before this runs, so the caller must mask such a key first (docs/ci.md).
  if [[ -n "${CONSOLE_API_KEY:-}" ]]; then echo "::add-mask::${CONSOLE_API_KEY}"; fi
  if [[ -n "${CONSOLE_CANDIDATE_API_KEY:-}" ]]; then echo "::add-mask::${CONSOLE_CANDIDATE_API_KEY}"; fi
}

check() {
  [[ "${RUNNER_OS:-Linux}" == "Linux" ]] || fail "runs on Linux runners only (this one is ${RUNNER_OS})"
  local strict="${INPUT_STRICT:-true}" read_only="${INPUT_READ_ONLY:-false}" skip_load="${INPUT_SKIP_LOAD:-true}"
  local remote="${INPUT_ALLOW_REMOTE_LOAD:-false}" profile="${INPUT_PROFILE:-smoke}" deadline="${INPUT_DEADLINE:-}"
  bool strict "$strict"
  bool read-only "$read_only"
  bool skip-load "$skip_load"
  bool allow-remote-load "$remote"
  case "$profile" in smoke | baseline | stress) ;; *) fail "input profile must be smoke, baseline or stress, got \"$profile\"" ;; esac
  if [[ -n "$deadline" && ! "$deadline" =~ ^[0-9]+([.][0-9]+)?$ ]]; then fail "input deadline must be a number of seconds, got \"$deadline\""; fi
  local base="${INPUT_BASE_URL:-}"
  if [[ -n "$base" && ! "$base" =~ ^https?:// ]]; then fail "input base-url must be an http or https URL (the host root of the server), got \"$base\""; fi

  local candidate="${INPUT_CANDIDATE_URL:-}"
  bool candidate-writes "${INPUT_CANDIDATE_WRITES:-false}"
  bool freeze-open "${INPUT_FREEZE_OPEN:-false}"
  bool candidate-latency "${INPUT_CANDIDATE_LATENCY:-false}"
  local min_effect="${INPUT_CANDIDATE_MIN_EFFECT:-10}"
  if [[ ! "$min_effect" =~ ^[0-9]+([.][0-9]+)?$ ]]; then fail "input candidate-min-effect must be a percentage (0 or more), got \"$min_effect\""; fi
  # The paired latency runs the paging profile at smoke or baseline size; stress ramps, which two sides cannot share.
  if [[ -n "$candidate" && "${INPUT_CANDIDATE_LATENCY:-false}" == "true" && "$profile" == "stress" ]]; then fail "input profile must be smoke or baseline with candidate-latency, got \"stress\""; fi
  if [[ -n "$candidate" && ! "$candidate" =~ ^https?:// ]]; then fail "input candidate-url must be an http or https URL (the host root of the candidate), got \"$candidate\""; fi
  manifest_input "${INPUT_CANDIDATE_MANIFEST:-}" "$candidate" "no candidate manifest at" \
    "input candidate-manifest is required with candidate-url: it names what the suite may touch on the candidate"
  local candidate_manifest="$MANIFEST_PATH"
  # The suite's default manifest names the reference server's seed: against another server it
  # would touch ids that are not there, or worse, ones that are.
  manifest_input "${INPUT_MANIFEST:-}" "$base" "no target manifest at" \
    "input manifest is required with base-url: the target manifest names what the suite may touch on your server (fixtures/targets/example.json of console-conformance is a template)"
  local manifest="$MANIFEST_PATH"
  local observations=""
  if [[ -n "${INPUT_OBSERVATIONS_BASELINE:-}" ]]; then
    observations="$(from_workspace "$INPUT_OBSERVATIONS_BASELINE")"
    [[ -f "$observations" ]] || fail "no observations file at ${INPUT_OBSERVATIONS_BASELINE} (input observations-baseline)"
  fi
  local history=""
  if [[ -n "${INPUT_HISTORY:-}" ]]; then history="$(from_workspace "$INPUT_HISTORY")"; fi
  local reports
  if [[ -n "${INPUT_REPORTS_DIR:-}" ]]; then reports="$(from_workspace "$INPUT_REPORTS_DIR")"; else reports="${RUNNER_TEMP:-/tmp}/console-conformance-reports"; fi
  local artifact="${INPUT_ARTIFACT_NAME:-}"
  if [[ -z "$artifact" ]]; then artifact="console-conformance-${GITHUB_JOB:-job}-${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"; fi
  case "$artifact" in *[\":\<\>\|\*\?\\/]*) fail "input artifact-name must not contain \" : < > | * ? \\ or /, got \"$artifact\"" ;; esac

  output manifest "$manifest"
  output observations "$observations"
  output history "$history"
  output reports "$reports"
  output artifact "$artifact"
  output candidate-manifest "$candidate_manifest"
  # Candidate mode runs no load profile of its own (with candidate-latency, the paging profile, and with candidate-writes the mutation one, sent to both sides).
  if [[ "$skip_load" == "true" || -n "$candidate" ]]; then output load false; else output load true; fi
  # Cache keys from the action's own files (the caller's workspace is not where they are, so the
  # workflow's hashFiles() cannot see them).
  output npm-key "console-conformance-npm-${RUNNER_OS:-Linux}-$(sha256sum "$ROOT/package-lock.json" | cut -c1-16)"
}

install() {
  local dir="${RUNNER_TEMP:-/tmp}/console-conformance-cli"
  rm -rf "$dir"
  mkdir -p "$dir/pack"
  # npm pack's prepack records the checkout's commit for `console-conformance --version`.
  (cd "$ROOT" && npm pack --silent --pack-destination "$dir/pack" >/dev/null)
  printf '{"name": "console-conformance-cli", "version": "0.0.0", "private": true}\n' >"$dir/package.json"
  # Artillery's @playwright/browser-chromium would download a browser the suite never starts.
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --prefer-offline "$dir"/pack/console-conformance-*.tgz)
  output command "$dir/node_modules/.bin/console-conformance"
}

# Candidate mode: console-conformance candidate, base-url (or the bundled reference) as the current, candidate-url as the candidate.
candidate_run() {
  local args=(--candidate "$INPUT_CANDIDATE_URL")
  export CONSOLE_CURRENT_API_KEY="${CONSOLE_API_KEY:-}"
  unset CONSOLE_BASE_URL CONSOLE_API_KEY CONSOLE_FIXTURES CONSOLE_TARGET_MANIFEST
  if [[ -n "${INPUT_BASE_URL:-}" ]]; then args+=(--current "$INPUT_BASE_URL"); fi
  if [[ -n "${CC_MANIFEST:-}" ]]; then args+=(--current-manifest "$CC_MANIFEST"); fi
  if [[ -n "${CC_CANDIDATE_MANIFEST:-}" ]]; then args+=(--candidate-manifest "$CC_CANDIDATE_MANIFEST"); fi
  if [[ "${INPUT_STRICT:-true}" == "true" ]]; then args+=(--strict); fi
  if [[ "${INPUT_CANDIDATE_WRITES:-false}" == "true" ]]; then args+=(--writes); else args+=(--read-only); fi
  if [[ "${INPUT_FREEZE_OPEN:-false}" == "true" ]]; then args+=(--freeze-open); fi
  if [[ "${INPUT_CANDIDATE_LATENCY:-false}" == "true" ]]; then args+=(--latency --profile "${INPUT_PROFILE:-smoke}" --min-effect "${INPUT_CANDIDATE_MIN_EFFECT:-10}"); fi
  if [[ "${INPUT_ALLOW_REMOTE_LOAD:-false}" == "true" ]]; then export CONSOLE_ALLOW_REMOTE_LOAD=1; else export CONSOLE_ALLOW_REMOTE_LOAD=0; fi
  export CONSOLE_REPORTS_DIR="${CC_REPORTS:?CC_REPORTS is not set: the check step resolves it}"
  mkdir -p "$CONSOLE_REPORTS_DIR"
  cc_logged candidate "${args[@]}"
  local log="$LOG"
  local verdict
  verdict="$(sed -n 's/^candidate: \(REGRESSION\|CHANGED\|SAME\): .*$/\1/p' "$log" | tail -n 1)"
  # Exit 2 is a latency regression and nothing worse: the contract's verdict line says SAME or CHANGED.
  if [[ "$CODE" == "2" ]]; then verdict="SLOWER"; fi
  if [[ -z "$verdict" ]]; then
    case "$CODE" in 0) verdict="SAME" ;; 1) verdict="REGRESSION" ;; *) verdict="NOT RUN" ;; esac
  fi
  publish "$verdict" "console-conformance, current vs candidate" '^=== current vs candidate$' "$log"
}

# Runs the installed `console-conformance` command (CC_COMMAND, from the install step) with the command
# named first and the arguments after it, in the caller's workspace; its output also into a new file,
# LOG; its exit code in CODE.
cc_logged() {
  local command="${CC_COMMAND:?CC_COMMAND is not set: the install step gives the command}"
  local name="$1"
  shift
  LOG="$(mktemp "${RUNNER_TEMP:-/tmp}/console-conformance-${name}.XXXXXX")"
  local log="$LOG"
  echo "console-conformance ${name} $* (in ${GITHUB_WORKSPACE:-$PWD})"
  set +e
  (cd "${GITHUB_WORKSPACE:-$PWD}" && "$command" "$name" "$@") 2>&1 | tee "$log"
  CODE="${PIPESTATUS[0]}"
  set -e
}

# The run step's outputs and its summary: the verdict, and the log from the line MARKER matches (else its last lines).
publish() {
  local verdict="$1" title="$2" marker="$3" log="$4"
  output exit-code "$CODE"
  output verdict "$verdict"
  output report-path "$CONSOLE_REPORTS_DIR"
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    {
      echo "### ${title}: ${verdict} (exit ${CODE})"
      echo
      echo '```text'
      if grep -q "$marker" "$log"; then sed -n "/${marker}/,\$p" "$log"; else tail -n 5 "$log"; fi
      echo '```'
    } >>"$GITHUB_STEP_SUMMARY"
  fi
  rm -f "$log"
}

run() {
  if [[ -n "${INPUT_CANDIDATE_URL:-}" ]]; then
    candidate_run
    return
  fi
  local args=()
  # The inputs decide, whatever the job's environment says: the suite reads these variables.
  export CONSOLE_BASE_URL="${INPUT_BASE_URL:-}"
  if [[ "${INPUT_STRICT:-true}" == "true" ]]; then
    export CONSOLE_STRICT=1
    args+=(--strict)
  else
    export CONSOLE_STRICT=0
  fi
  if [[ "${INPUT_ALLOW_REMOTE_LOAD:-false}" == "true" ]]; then export CONSOLE_ALLOW_REMOTE_LOAD=1; else export CONSOLE_ALLOW_REMOTE_LOAD=0; fi
  unset CONSOLE_FIXTURES
  if [[ -n "${CC_MANIFEST:-}" ]]; then export CONSOLE_TARGET_MANIFEST="$CC_MANIFEST"; else unset CONSOLE_TARGET_MANIFEST; fi
  export CONSOLE_REPORTS_DIR="${CC_REPORTS:?CC_REPORTS is not set: the check step resolves it}"
  mkdir -p "$CONSOLE_REPORTS_DIR"
  if [[ "${INPUT_SKIP_LOAD:-true}" == "true" ]]; then
    args+=(--skip-load)
  else
    args+=(--profile "${INPUT_PROFILE:-smoke}")
  fi
  if [[ "${INPUT_READ_ONLY:-false}" == "true" ]]; then args+=(--read-only); fi
  if [[ -n "${INPUT_DEADLINE:-}" ]]; then args+=(--deadline "$INPUT_DEADLINE"); fi
  if [[ -n "${CC_OBSERVATIONS:-}" ]]; then args+=(--observations-baseline "$CC_OBSERVATIONS"); fi
  if [[ -n "${CC_HISTORY:-}" ]]; then
    mkdir -p "$(dirname "$CC_HISTORY")"
    args+=(--history "$CC_HISTORY")
  fi

  cc_logged verify "${args[@]}"
  local log="$LOG"
  # The verdict as verify printed it (its last line: "verdict   PASS (exit 0) in 12.3 s"); by the
  # exit code when verify stopped before printing one (a bad configuration).
  local verdict
  verdict="$(sed -n 's/^verdict  *\(.*\) (exit [0-9]*).*$/\1/p' "$log" | tail -n 1)"
  if [[ -z "$verdict" ]]; then
    case "$CODE" in 0) verdict="PASS" ;; 1) verdict="FAIL" ;; 2) verdict="REGRESSION" ;; *) verdict="NOT RUN" ;; esac
  fi
  publish "$verdict" "console-conformance" '^=* verdict =*$' "$log"
}

verdict() {
  local code="${CC_EXIT_CODE:-}" artifact="${CC_ARTIFACT:-the report artifact}"
  case "$code" in
    0) echo "::notice title=console-conformance::PASS: every stated clause in scope checked and held (report: ${artifact})" ;;
    1) echo "::error title=console-conformance::contract failure: the server breaks a stated clause (or an inferred one under strict); see the report artifact ${artifact}" ;;
    2) echo "::error title=console-conformance::performance regression beyond the baseline's tolerance; see load/compare.json in the report artifact ${artifact}" ;;
    "") echo "::error title=console-conformance::the suite did not run: a step before it failed (see above)" ;;
    *) echo "::error title=console-conformance::the run could not be carried out (exit ${code}): target unreachable, key rejected or bad configuration; see the log above" ;;
  esac
  exit "${code:-3}"
}

case "${1:-}" in
  --help | -h) usage ;;
  mask | check | install | run | verdict)
    if [[ $# -ne 1 ]]; then
      echo "action.sh: unexpected argument ${2} (see --help)" >&2
      exit 3
    fi
    if [[ -z "${GITHUB_OUTPUT:-}" ]]; then
      echo "action.sh: GITHUB_OUTPUT is not set: these are the steps of action.yml, run by GitHub Actions" >&2
      exit 3
    fi
    "$1"
    ;;
  *)
    echo "action.sh: the first argument must be mask, check, install, run or verdict, got \"${1:-}\" (see --help)" >&2
    exit 3
    ;;
esac
