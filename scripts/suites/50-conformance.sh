#!/usr/bin/env bash
# The official MCP conformance suite against mcpgen's examples:
# examples/conformance-server (both eras, one binary) and
# examples/conformance-client.
#
# Suite versions, pinned exactly:
#   - 0.2.0-alpha.12 (the prerelease line that carries 2026-07-28; needs
#     Node >= 22): for the server, --requirements 2026-07-28 and
#     --requirements 2025-11-25 and --suite all (plain, and at each of the
#     two revisions), each in both response modes (JSON where possible, and
#     --sse: always SSE); for the client, --requirements of both revisions
#     and --suite all (plain and at 2025-11-25).
#   - 0.1.16 (the last stable release): its server scenarios in both
#     response modes, while they check things the prerelease does not.
# Node 22 comes from npm's node@22 package (the machine's node may be
# older); everything lands in the gitignored .cache/. Loopback only.
#
# Scoring, per run, from the suite's summary: a failing scenario fails the
# script unless the suite itself reports it as not scored for the
# revision, or scripts/suites/conformance-expected-failures.yaml lists it
# (each entry says why). A listed scenario that passes fails the script
# too, so the file never goes stale. The Tasks extension's scenarios
# (tasks-*, served by the fixture's task tools) are scored like the rest
# and also counted apart in each run's line, whether or not the suite calls them
# "not scored" for the revision (extension scenarios are outside the core
# requirements, but the fixture must pass them: issue 22). No tasks-*
# scenario in any server run fails the script as well.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cache=$root/.cache
alpha=0.2.0-alpha.12
stable=0.1.16
node=$cache/node22/node_modules/node/bin/node
expected=$root/scripts/suites/conformance-expected-failures.yaml

if ! command -v npm >/dev/null; then
	echo "50-conformance: SKIPPED: npm not found (the suite and Node 22 come from npm)" >&2
	exit 0
fi
if [[ ! -x $node ]]; then
	timeout 300 npm install --silent --no-audit --no-fund --prefix "$cache/node22" node@22
fi
# install DIR VERSION: the suite at exactly VERSION into DIR; prints its CLI.
install() {
	local dir=$1 version=$2
	local pkg=$dir/node_modules/@modelcontextprotocol/conformance
	if [[ ! -f $pkg/dist/index.js ]] || ! grep -q "\"version\": \"$version\"" "$pkg/package.json"; then
		timeout 300 npm install --silent --no-audit --no-fund --prefix "$dir" "@modelcontextprotocol/conformance@$version" >&2
	fi
	echo "$pkg/dist/index.js"
}
cli_alpha=$(install "$cache/conformance-alpha" "$alpha")
cli_stable=$(install "$cache/conformance" "$stable")

bin=$(mktemp -d)
pid=
trap 'if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$bin"' EXIT
go build -o "$bin/conformance-server" ./examples/conformance-server
go build -o "$bin/conformance-client" ./examples/conformance-client
# The client runs go through auth/oauthclient's conformance-auth-client (its
# own module: the main module stays standard-library only): it runs the
# auth/* scenarios itself and execs examples/conformance-client for the rest.
(cd auth/oauthclient && go build -o "$bin/conformance-auth-client" ./cmd/conformance-auth-client)
client="$bin/conformance-auth-client $bin/conformance-client"

# expected_for KIND: the scenario names the expected-failures file lists
# under KIND (server or client), one per line.
expected_for() {
	awk -v kind="$1" '
		/^[a-z]+:/ { sect = $1; sub(":", "", sect); next }
		sect == kind && /^[[:space:]]+- / { sub(/^[[:space:]]+- /, ""); sub(/[[:space:]]*#.*/, ""); print }
	' "$expected"
}

# The suite's extension scenarios (its `list` marks them [extension]): no
# revision requires them, and --requirements runs do not score them; the
# --suite all runs are scored the same way here (reported, not failing),
# except the Tasks extension's tasks-*, which mcpgen implements and scores.
extensions=$("$node" "$cli_alpha" list 2>/dev/null | sed -n 's/^  - \([^ ]*\) \[extension\]$/\1/p')
if [[ -z $extensions ]]; then
	echo "== the suite's list marked no scenario [extension]: its output changed; update this script" >&2
	exit 1
fi

rc=0
tasks_seen=0 # tasks-* scenarios run over all server runs: none means the suite stopped listing them
# score LABEL KIND LOG: applies the scoring rules above to one run's log
# and prints one line of counts (and the suite's lines for what failed).
score() {
	local label=$1 kind=$2 log=$3
	local summary unscored exp
	summary=$(sed -n '/SUMMARY ===/,/^Total/p' "$log" | grep -E '^[✓✗] ' || true)
	unscored=$(sed -n '/^Not scored/,$p' "$log" | sed -n 's/^  [✓✗] \([^ ]*\) (.*/\1/p')
	exp=$(expected_for "$kind")
	local scored=0 passed=0 unsc=0 unsc_fail=0 tasks=0 tasks_pass=0 known=0 bad=()
	while IFS= read -r line; do
		[[ -z $line ]] && continue
		local mark=${line%% *} name=${line#* }
		name=${name%%:*}
		if [[ $name == tasks-* ]]; then
			# The Tasks extension: scored here even where the suite
			# does not score it (any failure fails the script).
			tasks=$((tasks + 1))
			tasks_seen=$((tasks_seen + 1))
			if [[ $mark == ✓ ]]; then
				tasks_pass=$((tasks_pass + 1))
			else
				bad+=("$line")
			fi
			continue
		fi
		if grep -qxF -- "$name" <<<"$unscored" || grep -qxF -- "$name" <<<"$extensions"; then
			unsc=$((unsc + 1))
			[[ $mark == ✗ ]] && unsc_fail=$((unsc_fail + 1))
			continue
		fi
		if grep -qxF -- "$name" <<<"$exp"; then
			if [[ $mark == ✓ ]]; then
				bad+=("$name passes but conformance-expected-failures.yaml lists it: remove the entry")
			else
				known=$((known + 1))
			fi
			continue
		fi
		scored=$((scored + 1))
		if [[ $mark == ✓ ]]; then
			passed=$((passed + 1))
		else
			bad+=("$line")
		fi
	done <<<"$summary"
	local status=ok
	if [[ -z $summary ]]; then
		status=FAILED
		bad+=("no summary in the suite's output")
	elif [[ ${#bad[@]} -gt 0 ]]; then
		status=FAILED
	fi
	printf '== %-58s %s: scored %d/%d passed' "$label" "$status" "$passed" "$scored"
	[[ $known -gt 0 ]] && printf ', %d expected failures (listed)' "$known"
	[[ $unsc -gt 0 ]] && printf ', not scored (the suite does not, or an extension): %d run, %d failing' "$unsc" "$unsc_fail"
	[[ $tasks -gt 0 ]] && printf ', tasks-* (Tasks extension, scored): %d/%d passed' "$tasks_pass" "$tasks"
	printf '\n'
	if [[ $status != ok ]]; then
		rc=1
		printf '   %s\n' "${bad[@]}"
		failed_checks "${log%.log}.out" | sed 's/^/   failed check: /'
		echo "   (log: the suite's output follows)"
		sed -n '/SUMMARY ===/,$p' "$log" | head -n 60 | sed 's/^/   | /'
	fi
}

# failed_checks DIR: "scenario: check-id: message" for each check that
# failed in the checks.json files a run saved under DIR (its summary names
# only the scenario; a flake must say which check it was).
failed_checks() {
	[[ -d $1 ]] || return 0
	"$node" -e '
		const fs = require("fs"), path = require("path");
		for (const d of fs.readdirSync(process.argv[1]).sort()) {
			const f = path.join(process.argv[1], d, "checks.json");
			if (!fs.existsSync(f)) continue;
			const scenario = d.replace(/^(server|client)-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
			for (const c of JSON.parse(fs.readFileSync(f, "utf8")))
				if (c.status === "FAILURE") console.log(scenario + ": " + c.id + ": " + (c.errorMessage || "(no message)"));
		}' "$1" || true
}

# suite CLI LOG ARGS...: one suite run, bounded, its per-check results
# saved beside LOG (LOG without .log, plus .out) for failed_checks; its
# exit status is not used (score reads the summary).
suite() {
	local cli=$1 log=$2
	shift 2
	timeout 240 "$node" "$cli" "$@" -o "${log%.log}.out" >"$log" 2>&1 || true
}

port=${MCPGEN_CONFORMANCE_PORT:-39217}
for mode in json sse; do
	flags=()
	if [[ $mode == sse ]]; then
		port=$((port + 1))
		flags=(--sse)
	fi
	"$bin/conformance-server" --addr "127.0.0.1:$port" "${flags[@]}" 2>"$bin/server-$mode.log" &
	pid=$!
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
		sleep 0.1
	done
	url=http://127.0.0.1:$port/mcp
	for rev in 2026-07-28 2025-11-25; do
		suite "$cli_alpha" "$bin/s-$mode-$rev.log" server --url "$url" --requirements "$rev"
		score "$alpha server --requirements $rev ($mode)" server "$bin/s-$mode-$rev.log"
	done
	suite "$cli_alpha" "$bin/s-$mode-all.log" server --url "$url" --suite all
	score "$alpha server --suite all ($mode)" server "$bin/s-$mode-all.log"
	for rev in 2026-07-28 2025-11-25; do
		suite "$cli_alpha" "$bin/s-$mode-all-$rev.log" server --url "$url" --suite all --spec-version "$rev"
		score "$alpha server --suite all --spec-version $rev ($mode)" server "$bin/s-$mode-all-$rev.log"
	done
	suite "$cli_stable" "$bin/s-$mode-stable.log" server --url "$url"
	score "$stable server ($mode)" server "$bin/s-$mode-stable.log"
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
done

for rev in 2026-07-28 2025-11-25; do
	suite "$cli_alpha" "$bin/c-$rev.log" client --command "$client" --requirements "$rev"
	score "$alpha client --requirements $rev" client "$bin/c-$rev.log"
done
suite "$cli_alpha" "$bin/c-all.log" client --command "$client" --suite all
score "$alpha client --suite all" client "$bin/c-all.log"
suite "$cli_alpha" "$bin/c-all-2025-11-25.log" client --command "$client" --suite all --spec-version 2025-11-25
score "$alpha client --suite all --spec-version 2025-11-25" client "$bin/c-all-2025-11-25.log"
if [[ $tasks_seen -eq 0 ]]; then
	echo "== no tasks-* scenario ran in any server run: the Tasks extension went unchecked (did the suite rename them?)"
	rc=1
fi
exit $rc
