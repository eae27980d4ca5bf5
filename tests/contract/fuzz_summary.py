#!/usr/bin/env python3
"""Sums up the contract fuzzer's runs (one per API key): every distinct
finding once, with a request that reproduces it and the answer it got, and
whether the positive phase created each kind of resource from the document
alone. Exits non-zero on any finding or on a kind it could not create."""

from __future__ import annotations

import argparse
import base64
import json
import re
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


def answer_of(interaction: dict) -> tuple[object, str, str, str]:
    """Status, body text, error code and param of a recorded answer."""
    response = interaction.get("response") or {}
    content = response.get("content") or response.get("body")
    answer = body_text(content)
    try:
        error = json.loads(body_text(content, limit=10**7))["error"]
        code, param = error["code"], error.get("param") or ""
    except (ValueError, KeyError, TypeError):
        code, param = "", ""
    return response.get("status_code", "no answer"), answer, code, param


def scan(report: Path, label: str, seen: dict, dropped: Counter) -> None:
    """Adds each failed check of one NDJSON report to `seen` (the smallest
    request per finding) and each failure hooks.py dropped to `dropped`."""
    for line in report.read_text(encoding="utf-8").splitlines():
        finished = json.loads(line).get("ScenarioFinished")
        if not finished:
            continue
        recorder = finished["recorder"]
        interactions = recorder.get("interactions", {})
        for case_id, count in (recorder.get("filtered_failures") or {}).items():
            status, _, code, param = answer_of(interactions.get(case_id) or {})
            param = re.sub(r"\.\d+(?=\.|$)", ".*", param)
            dropped[" ".join(str(part) for part in (status, code, param) if part)] += count
        for case_id, checks in recorder.get("checks", {}).items():
            for check in checks:
                if check["status"] != "failure":
                    continue
                failure = check["failure_info"]["failure"]
                interaction = interactions.get(case_id) or {}
                request = interaction.get("request", {})
                case = recorder["cases"][case_id]["value"]
                status, answer, code, param = answer_of(interaction)
                # One finding per check, operation, answer and field (list
                # indexes aside): one rule broken by many cases is one problem.
                key = (
                    failure["code"],
                    failure["title"],
                    failure["operation"],
                    status,
                    code,
                    re.sub(r"\.\d+(?=\.|$)", ".*", param),
                )
                body = body_text(request.get("body"), limit=10**6)
                if key in seen and len(seen[key][0]) <= len(body):
                    continue
                headers = {
                    name: values[0] if isinstance(values, list) else values
                    for name, values in (request.get("headers") or {}).items()
                    if name.lower() not in ("user-agent", "accept", "accept-encoding", "connection", "content-length")
                    and not name.lower().startswith("x-schemathesis")
                }
                mode = (case.get("meta") or {}).get("generation", {}).get("mode", "?")
                message = failure["message"].strip().replace("\n", "\n    ")
                seen[key] = (
                    body,
                    (
                        f"[{label} key, {mode} case, {finished['phase']} phase]\n"
                        f"    {request.get('method', case['method'])} {request.get('uri', case['path'])}\n"
                        f"    headers: {json.dumps(headers)}\n"
                        + (f"    body: {body_text(request.get('body'))}\n" if request.get("body") else "")
                        + f"    -> {status}: {answer}\n"
                        f"    {message}"
                    ),
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tally", required=True, help="creates recorded by hooks.py")
    parser.add_argument("runs", nargs="+", help="LABEL=REPORT_DIR for each run")
    args = parser.parse_args()

    seen: dict[tuple, tuple[str, str]] = {}
    dropped: Counter = Counter()
    for run in args.runs:
        label, directory = run.split("=", 1)
        for report in sorted(Path(directory).glob("*.ndjson")):
            scan(report, label, seen, dropped)

    print(f"fuzzer findings: {len(seen)} distinct (by check, operation, status, error code and param)")
    for number, ((code, title, operation, status, error_code, param), (_, text)) in enumerate(
        sorted(seen.items(), key=lambda item: str(item[0])), 1
    ):
        print(f"\n{number}. {code} {title}: {operation} -> {status} {error_code} {param}".rstrip())
        print(f"   {text}")

    # hooks.py drops two kinds: refusals beyond the schema (4xx) and a
    # batch's broken items each refused in its own result (200).
    beyond = [(answer, count) for answer, count in dropped.most_common() if not answer.startswith("200")]
    items = sum(count for answer, count in dropped.items() if answer.startswith("200"))
    if beyond:
        print(
            "\nschema-valid requests refused for facts beyond the schema (accepted, see hooks.py): "
            + ", ".join(f"{answer} x{count}" for answer, count in beyond)
        )
    if items:
        print(f"\nbatches whose broken items were each refused in their own result (accepted, see hooks.py): {items}")

    tally_path = Path(args.tally)
    created = (
        Counter(json.loads(line)["path"] for line in tally_path.read_text().splitlines())
        if tally_path.exists()
        else Counter()
    )
    print("\ncreated from the document alone: " + ", ".join(f"POST {path}: {created[path]}" for path in CREATES))
    missing = [path for path in CREATES if not created[path]]
    if missing:
        print(
            "  none accepted for "
            + ", ".join(f"POST {path}" for path in missing)
            + ": the document gives a generator no request the service accepts"
            " (no examples, or constraints it does not state)"
        )
    return 1 if seen or missing else 0


if __name__ == "__main__":
    sys.exit(main())
