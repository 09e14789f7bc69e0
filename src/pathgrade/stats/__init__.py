"""Pure statistics for experiments: repeated trials, paired comparisons, agreement.

Never reads files, the environment or the clock; every random function takes an int seed or a
``numpy.random.Generator``. See ``docs/experiments.md`` for definitions and defaults.
"""

from __future__ import annotations

from pathgrade.stats.agreement import cohen_kappa, krippendorff_alpha
from pathgrade.stats.bootstrap import (
    BootstrapResult,
    bootstrap_mean_ci,
    paired_bootstrap,
    resample_means,
)
from pathgrade.stats.compare import Comparison, MetricComparison, compare_records
from pathgrade.stats.holm import holm
from pathgrade.stats.paired import (
    cohens_dz,
    mcnemar_exact,
    mcnemar_from_pairs,
    sign_flip_permutation,
    wilcoxon_signed_rank,
)
from pathgrade.stats.passk import all_pass_at_n, pass_at_k, pass_hat_k, passk_summary
from pathgrade.stats.trials import case_means, summarize, summarize_trials

__all__ = [
    "BootstrapResult",
    "Comparison",
    "MetricComparison",
    "all_pass_at_n",
    "bootstrap_mean_ci",
    "case_means",
    "cohen_kappa",
    "cohens_dz",
    "compare_records",
    "holm",
    "krippendorff_alpha",
    "mcnemar_exact",
    "mcnemar_from_pairs",
    "paired_bootstrap",
    "pass_at_k",
    "pass_hat_k",
    "passk_summary",
    "resample_means",
    "sign_flip_permutation",
    "summarize",
    "summarize_trials",
    "wilcoxon_signed_rank",
]
