"""The developer workspace the OpenClaw 2026.9.6 recorder (`record_2026_9.py`) indexes.

`build_files()` returns `{relative path: (text, mtime in epoch ms)}`, the same on every run. What it holds:

* `MEMORY.md`: curated `- ` entries under headings, with `<!-- importance: N -->`, `<!-- trigger: … -->` and
  `<!-- project: … -->` annotations, a multi-line entry and one malformed project annotation;
* `USER.md`: the user's preferences (per-entry chunking; project annotations are not read here);
* daily logs `memory/YYYY-MM-DD.md` from June to November 2026, among them an old fact that a newer one
  supersedes ("burst limit 200" on 2026-06-10, "raised to 500" on 2026-11-24);
* slug notes `memory/YYYY-MM-DD-slug.md`, one of them in German, one in Japanese;
* undated notes under `memory/` (evergreen for decay), among them `memory/runbooks/payments-deploy.md`, where the
  word "runbooks" is only in the path, and a Chinese note;
* one long incident log (`memory/2026-11-02.md`, more than two 1600-char windows).

The mtimes are fixed: a dated file's mtime is 18:00 UTC on its date; undated files use fixed instants.
"""

from __future__ import annotations

from datetime import UTC, datetime


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp() * 1000)


MEMORY_MD = """# Long-term memory

## Payments service
- The payments API is a Go service in the `payments-api` repo; it talks to Stripe through the `gateway` package. <!-- project: github.com/acme/payments-api -->
- Payments deploys go through the Friday freeze: nothing ships after 15:00 CET on Fridays. <!-- importance: 9 --> <!-- trigger: deploy on friday, friday deploy -->
- The payments ledger is reconciled nightly at 02:00 UTC by the `ledger-reconcile` cron job.
  It writes a summary to #payments-alerts and pages on a mismatch above 0.5%.
- Idempotency keys for payment intents are kept 24 hours in Redis. <!-- importance: 3 -->

## Infrastructure
- Production Postgres is version 16 on RDS, instance class db.r6g.2xlarge, with two read replicas. <!-- importance: 8 -->
- Staging Postgres runs on a single db.t4g.large instance and is wiped every Sunday.
- Terraform state lives in the S3 bucket `acme-tf-state`; locks are in the DynamoDB table `tf-locks`. <!-- importance: 7 --> <!-- trigger: terraform state, tf lock -->
- Kubernetes clusters: `prod-eu` (eu-central-1) and `prod-us` (us-east-1); both run Karpenter for node scaling.
- The CI runners are self-hosted on Hetzner; the runner pool is called `hz-ci`. <!-- importance: 2 -->

## Team
- Maria Keller owns the payments service; Tomás Ortega is the backup on-call. <!-- importance: 6 --> <!-- project: github.com/acme/payments-api -->
- Weekly infra sync is on Tuesdays at 10:00 CET.
- The search team uses the trigram tokenizer experiment only in staging. <!-- project: -->

## Decisions
- We chose OpenTelemetry over Datadog agents for tracing (decided 2026-07-15). <!-- importance: 5 -->
- Feature flags move from LaunchDarkly to the in-house `flagd` service by Q1 2027. <!-- importance: 4 --> <!-- trigger: feature flags -->
"""

USER_MD = """# User

- Prefers concise answers with code first, explanation after. <!-- importance: 8 -->
- Uses Neovim with the LazyVim distribution; tabs are rendered as 4 spaces.
- Works from Berlin (CET/CEST); usual hours 09:00 to 18:00. <!-- trigger: timezone, working hours -->
- Writes Go and Python daily, some TypeScript for the dashboard.
- Dislikes being asked to confirm trivial steps. <!-- importance: 2 -->
"""

DAILY: dict[str, str] = {
    "2026-06-02": "Kicked off the payments rate-limit project with Maria. Goal: protect the API from bursty partners.",
    "2026-06-05": "Reviewed the Redis cluster sizing for rate limiting. Decided on a token bucket per API key.",
    "2026-06-10": "Rate limiter shipped to production. The payments API burst limit is 200 requests per minute per key; sustained limit 50 rps.",
    "2026-06-16": "Postgres 15 to 16 upgrade rehearsal on staging went fine; pg_upgrade took 14 minutes.",
    "2026-06-23": "On-call handover to Tomás. Open item: flaky ledger-reconcile job on the 1st of the month.",
    "2026-06-30": "Quarter close. Wrote the infra cost report: Hetzner CI saves about 40% against GitHub-hosted runners.",
    "2026-07-03": "Debugged the flaky ledger-reconcile job: a timezone bug around midnight UTC. Fix merged.",
    "2026-07-08": "Upgraded Karpenter to v1.1 in prod-eu. Node consolidation now waits 5 minutes.",
    "2026-07-15": "Tracing decision: OpenTelemetry collector as a DaemonSet, exporting to Tempo. Datadog agents retire in August.",
    "2026-07-21": "Partner Acme Retail complained about 429s during their flash sale. Kept the limits for now.",
    "2026-07-29": "Terraform: split the monolithic state into per-environment workspaces.",
    "2026-08-04": "Production Postgres upgrade to 16 done in a 20 minute window. Replicas caught up after 6 minutes.",
    "2026-08-12": "Datadog agents removed from prod-us. Dashboards moved to Grafana.",
    "2026-08-19": "Wrote the payments deploy checklist; moved it to the runbook folder.",
    "2026-08-26": "Interviewed two SRE candidates. Strong yes for the second one (Kubernetes and Go background).",
    "2026-09-02": "Redis memory alarm on the rate-limit cluster: keys had no TTL. Added a 2 hour TTL.",
    "2026-09-09": "Flagd proof of concept running in staging with three flags.",
    "2026-09-16": "Incident review for the September 14 database failover. Action items filed.",
    "2026-09-23": "Planned the CI runner pool expansion: four more Hetzner AX52 machines.",
    "2026-09-30": "Quarterly planning: rate limiting v2 (per-endpoint limits) accepted for Q4.",
    "2026-10-06": "Started rate limiting v2 design. Per-endpoint buckets, shared Redis Lua script.",
    "2026-10-14": "Staging Postgres wiped and reseeded; seeding script now takes 3 minutes instead of 11.",
    "2026-10-21": "Load test of rate limiting v2 in staging at 3x the normal traffic. p99 latency +2 ms.",
    "2026-10-28": "Migrated the ledger-reconcile cron job to Kubernetes CronJob in prod-eu.",
    "2026-11-04": "Post-incident fixes done: connection pool limits lowered to 80 per pod.",
    "2026-11-10": "Feature flag migration: 12 of 40 flags now served by flagd.",
    "2026-11-17": "Capacity review with finance. Approved the reserved instances for 2027.",
    "2026-06-19": "Paired with Tomás on the Stripe webhook retry logic; retries now back off exponentially up to 1 hour.",
    "2026-07-11": "Renewed the TLS certificates for the partner API; cert-manager handles it from now on.",
    "2026-07-25": "Cost alert: S3 request costs doubled because of a chatty backup job. Batched the uploads.",
    "2026-08-08": "Helped the dashboard team with a TypeScript build issue (esbuild target mismatch).",
    "2026-08-30": "Archived the old Jenkins server. All pipelines now on the hz-ci runner pool.",
    "2026-09-19": "Tuned the Postgres autovacuum settings on the ledger tables; bloat down 30%.",
    "2026-10-02": "Security review of the partner API keys: rotated 4 keys older than a year.",
    "2026-10-17": "Shadowed the new SRE during their first on-call shift; no pages.",
    "2026-11-07": "Moved the rate-limit Redis cluster to Redis 7.2; Lua script unchanged.",
    "2026-11-20": "Partner review meeting: Acme Retail asked again for higher burst limits during sales events.",
    "2026-11-24": "Rate limiting v2 rollout finished. The payments API burst limit was raised to 500 requests per minute per key after the partner review; sustained limit stays 50 rps.",
    "2026-11-27": "Wrote the handover notes for December; Maria is on leave from December 15.",
    "2026-11-30": "Cleaned up old Terraform workspaces; the tf-locks table had 3 stale locks.",
}

SLUG_NOTES: dict[str, str] = {
    "memory/2026-07-15-tracing-decision.md": """# Tracing decision

- Options compared: Datadog APM, Honeycomb, OpenTelemetry + Tempo.
- Chosen: OpenTelemetry collector as a DaemonSet, Tempo as the backend, Grafana for dashboards.
- Reason: no per-host pricing, vendor neutral, the team already runs Grafana.
""",
    "memory/2026-09-14-db-failover.md": """# Database failover incident (2026-09-14)

At 03:12 UTC the primary RDS instance in eu-central-1 failed over to the standby.
The payments API returned 500s for 7 minutes because the connection pool kept stale connections.
Root cause: pool max lifetime was 24 hours; DNS changed but connections stayed.
Fix: max lifetime 5 minutes, health check on borrow.
""",
    "memory/2026-10-07-team-offsite.md": """# Team-Offsite in Berlin

Am 7. Oktober hatten wir unser Offsite im Büro am Alexanderplatz.
Wir haben über die Bereitschaftsdienste gesprochen: künftig rotiert die Rufbereitschaft wöchentlich.
Entscheidung: Die Datenbank-Migration auf Aurora wird auf das zweite Quartal 2027 verschoben.
Das Abendessen war im Restaurant Zur Letzten Instanz.
""",
    "memory/2026-08-21-tokyo-vendor.md": """# 東京のベンダー打ち合わせ

決済ゲートウェイのベンダーと東京で打ち合わせをしました。
レート制限の仕様について説明し、APIキーごとの上限を確認しました。
次回の打ち合わせは十一月です。
""",
    "memory/2026-11-12-flagd-rollout.md": """# flagd rollout plan

1. Mirror every LaunchDarkly flag into flagd (read-only).
2. Switch services one by one, payments last.
3. Turn off LaunchDarkly SDK keys after two quiet weeks.
""",
}

UNDATED: dict[str, tuple[str, str]] = {
    "memory/runbooks/payments-deploy.md": ("2026-08-19T12:00:00", """# Payments deploy

1. Check the Friday freeze (no deploys after 15:00 CET on Fridays).
2. Announce in #payments-deploys with the change link.
3. Run `make deploy ENV=prod` from the release branch.
4. Watch the error rate dashboard for 15 minutes; roll back with `make rollback` if 5xx exceed 1%.
"""),
    "memory/runbooks/postgres-failover.md": ("2026-09-16T12:00:00", """# Postgres failover

- Confirm the failover in the RDS console and note the new primary.
- Restart the payments API pods if connection errors persist after 2 minutes.
- Post an update in #incidents every 15 minutes.
"""),
    "memory/projects/rate-limiting.md": ("2026-10-06T12:00:00", """# Rate limiting

Token bucket per API key, stored in Redis with a Lua script.
v2 adds per-endpoint buckets; the partner tier gets a higher sustained rate.
Open question: should internal services bypass the limiter entirely?
"""),
    "memory/projects/flagd.md": ("2026-09-09T12:00:00", """# flagd

In-house feature flag service replacing LaunchDarkly.
Flags are defined in the `flags` repo and synced by a GitOps pipeline.
"""),
    "memory/notes/shanghai-office.md": ("2026-09-01T12:00:00", """# 上海办公室

上海办公室的网络访问需要通过公司的代理服务器。
支付团队在上海有两名工程师，负责亚洲合作伙伴的接入。
数据库迁移计划推迟到明年第二季度。
"""),
    "memory/notes/reading-list.md": ("2026-07-01T12:00:00", """# Reading list

- Designing Data-Intensive Applications (re-read chapter 9 on consistency).
- The Site Reliability Workbook, chapter on alerting on SLOs.
"""),
}


def _long_incident_log() -> str:
    lines = ["# 2026-11-02", "", "## Incident: payment webhooks delayed", ""]
    steps = [
        "Alert fired for webhook queue depth above 10k on the payments worker.",
        "Checked the worker pods: all running, CPU at 30%, no restarts.",
        "Queue consumer lag kept growing; suspected the Stripe webhook signature check.",
        "Found that the signing secret rotation last night was only applied in prod-us.",
        "Applied the new secret in prod-eu through the sealed-secrets controller.",
        "Consumers started to drain the queue at about 400 messages per second.",
        "Queue back under 1k; customers saw delayed receipts for about 50 minutes.",
        "Wrote a follow-up to automate secret rotation in both regions at once.",
    ]
    for hour, step in enumerate(steps):
        for minute in range(0, 60, 10):
            lines.append(f"- {8 + hour:02d}:{minute:02d} {step} Observation {minute // 10 + 1}: queue depth and "
                         f"consumer lag noted in the incident channel.")
    lines += ["", "## Follow-ups", "", "- Automate the signing secret rotation across regions.",
              "- Add an alert on webhook signature failures above 1% for 5 minutes."]
    return "\n".join(lines) + "\n"


def build_files() -> dict[str, tuple[str, int]]:
    """Every workspace file: relative path → (text, mtime in epoch ms)."""
    files: dict[str, tuple[str, int]] = {
        "MEMORY.md": (MEMORY_MD, _ms("2026-11-28T09:00:00")),
        "USER.md": (USER_MD, _ms("2026-06-01T09:00:00")),
    }
    for day, body in DAILY.items():
        files[f"memory/{day}.md"] = (f"# {day}\n\n- {body}\n", _ms(f"{day}T18:00:00"))
    files["memory/2026-11-02.md"] = (_long_incident_log(), _ms("2026-11-02T18:00:00"))
    for path, text in SLUG_NOTES.items():
        day = path.split("/")[-1][:10]
        files[path] = (text, _ms(f"{day}T18:00:00"))
    for path, (when, text) in UNDATED.items():
        files[path] = (text, _ms(when))
    return dict(sorted(files.items()))
