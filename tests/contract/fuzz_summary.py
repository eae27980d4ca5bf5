#!/usr/bin/env python3
"""Sums up the contract fuzzer's runs (one per API key): every distinct
finding once, with a request that reproduces it and the answer it got, and
whether the positive phase created each kind of resource from the document
alone. Exits non-zero on any finding or on a kind it could not create."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections import Counter
from pathlib import Path

CREATES = ("/v1/quotes", "/v1/deliveries", "/v1/webhooks", "/v1/fleet/orders")


def body_text(body: dict | None, limit: int = 700) -> str:
    if not body:
        return ""
    raw = base64.b64decode(body["$base64"]) if "$base64" in body else body.get("string", "").encode()
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} bytes)"


def findings(report: Path, label: str):
    """(key, description) for each failed check in one NDJSON report."""
    for line in report.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished:
            continue
        recorder = finished["recorder"]
        for case_id, checks in recorder["checks"].items():
            for check in checks:
                if check["status"] != "failure":
                    continue
                failure = check["failure_info"]["failure"]
                interaction = recorder["interactions"].get(case_id) or {}
                request, response = interaction.get("request", {}), interaction.get("response") or {}
                case = recorder["cases"][case_id]["value"]
                answer = body_text(response.get("content") or response.get("body"))
                try:
                    code = json.loads(answer)["error"]["code"]
                except (ValueError, KeyError, TypeError):
                    code = ""
                status = response.get("status_code", "no answer")
                key = (failure["code"], failure["operation"], status, code, failure["title"])
                headers = {
                    name: values[0] if isinstance(values, list) else values
                    for name, values in (request.get("headers") or {}).items()
                    if name.lower() not in ("user-agent", "accept", "accept-encoding", "connection", "content-length")
                    and not name.lower().startswith("x-schemathesis")
                }
                mode = (case.get("meta") or {}).get("generation", {}).get("mode", "?")
                yield key, (
                    f"[{label} key, {mode} case, {finished['phase']} phase]\n"
                    f"    {request.get('method', case['method'])} {request.get('uri', case['path'])}\n"
                    f"    headers: {json.dumps(headers)}\n"
                    + (f"    body: {body_text(request.get('body'))}\n" if request.get("body") else "")
                    + f"    -> {status}: {answer}\n"
                    f"    {failure['message'].strip()}"
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tally", required=True, help="creates recorded by hooks.py")
    parser.add_argument("runs", nargs="+", help="LABEL=REPORT_DIR for each run")
    args = parser.parse_args()

    seen: dict[tuple, str] = {}
    for run in args.runs:
        label, directory = run.split("=", 1)
        for report in sorted(Path(directory).glob("*.ndjson")):
            for key, text in findings(report, label):
                seen.setdefault(key, text)

    print(f"fuzzer findings: {len(seen)} distinct (by check, operation, status and error code)")
    for number, ((code, operation, status, error_code, title), text) in enumerate(sorted(seen.items(), key=str), 1):
        print(f"\n{number}. {code} {title}: {operation} -> {status} {error_code}".rstrip())
        print(f"   {text}")

    tally_path = Path(args.tally)
    created = Counter(
        json.loads(line)["path"] for line in tally_path.read_text().splitlines()
    ) if tally_path.exists() else Counter()
    print("\ncreated from the document alone: " + ", ".join(f"POST {path}: {created[path]}" for path in CREATES))
    missing = [path for path in CREATES if not created[path]]
    if missing:
        print(
            "  none accepted for "
            + ", ".join(f"POST {path}" for path in missing)
            + ": the document gives a generator no request the service accepts (no examples, or constraints it does not state)"
        )
    return 1 if seen or missing else 0


if __name__ == "__main__":
    sys.exit(main())
