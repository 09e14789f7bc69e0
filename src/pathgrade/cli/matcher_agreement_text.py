"""The text of ``pathgrade matcher-agreement``: renders the report dict, computes nothing."""

from __future__ import annotations

from typing import Any


def _f(x: float | None, width: int = 5) -> str:
    return f"{'-':>{width}}" if x is None else f"{x:{width}.3f}"


def _groups(title: str, groups: dict[str, Any]) -> list[str]:
    lines = [
        f"  {title:<16}  n  equiv  kappa  prec.  recall   acc.  coverage  band kappa  band acc."
    ]
    for name, g in groups.items():
        lines.append(
            f"  {name:<16} {g['n']:3d}  {g['equivalent']:5d}  {_f(g['kappa'])}  "
            f"{_f(g['precision'])}  {_f(g['recall'], 6)}  {_f(g['accuracy'])}  "
            f"{g['coverage']:8.3f}  {_f(g['band_kappa'], 10)}  {_f(g['band_accuracy'], 9)}"
        )
    return lines


def _held_out(title: str, part: dict[str, Any]) -> list[str]:
    if "skipped" in part:
        return [f"{title}: skipped ({part['skipped']})"]
    h, b = part["held_out"], part["band"]
    low, high = h["kappa_95"]
    lines = [
        f"{title}: held-out kappa {_f(h['kappa'])} (95% {_f(low)} to {_f(high)},"
        f" {h['resamples']} resamples), precision {_f(h['precision'])},"
        f" recall {_f(h['recall'])}, accuracy {_f(h['accuracy'])}",
        f"  band: coverage {b['coverage']:.3f} ({b['decided']} decided, {b['uncertain']}"
        f" uncertain), kappa on decided {_f(b['decided_kappa'])}",
        "  fold              threshold  band          kappa  coverage  band kappa",
    ]
    for f in part["folds"]:
        low_b, high_b = f["band"]
        lines.append(
            f"  {f['fold']:<16}  {f['threshold']:9.2f}  [{low_b:.2f}, {high_b:.2f}]"
            f"  {_f(f['held_out_kappa'])}  {f['coverage']:8.3f}  {_f(f['band_kappa'], 10)}"
        )
    if "by_domain" in part:
        lines += _groups("domain", part["by_domain"])
    if "by_kind" in part:
        lines += _groups("kind", part["by_kind"])
        lines.append(
            "  (kappa '-': the group's labels are all one value, kappa says nothing; see acc.)"
        )
    return lines


def render(report: dict[str, Any]) -> str:
    """The report as lines of text."""
    at = report["at_threshold"]
    lines = [
        f"{report['pairs']} pairs ({report['equivalent']} equivalent)",
        f"in-sample at threshold {at['threshold']:g}: kappa {_f(at['kappa'])}, precision"
        f" {_f(at['precision'])}, recall {_f(at['recall'])}",
        "in-sample sweep:",
        "threshold  kappa  precision  recall  accuracy",
    ]
    for row in report["sweep"]:
        mark = (
            "  <- best kappa (in-sample)"
            if row["threshold"] == report["best_kappa_threshold"]
            else ""
        )
        lines.append(
            f"{row['threshold']:9.2f}  {_f(row['kappa'])}  {_f(row['precision'], 9)}"
            f"  {_f(row['recall'], 6)}  {_f(row['accuracy'], 8)}{mark}"
        )
    k = report["k_fold"]
    lines += _held_out(f"{k.get('k', '')}-fold (stratified, seed {k.get('seed', '')})", k)
    lines += _held_out("leave-one-domain-out", report["leave_one_domain_out"])
    if "recommended" in k:
        r = k["recommended"]
        ins = report["in_sample_at_recommended"]
        lines.append(
            f"recommended (chosen most often across the k folds): threshold {r['threshold']:g},"
            f" band [{r['band'][0]:g}, {r['band'][1]:g}]; on all pairs (in-sample): kappa"
            f" {_f(ins['threshold']['kappa'])}, band coverage {ins['coverage']:.3f}, kappa on"
            f" decided {_f(ins['decided_kappa'])}"
        )
    return "\n".join(lines)
