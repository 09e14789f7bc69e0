"""The tool-call layer: schema validity, argument correctness, execution outcome, selection."""

from pathgrade.metrics.tool.arguments import CallComparison, FieldResult, json_equal
from pathgrade.metrics.tool.confusion import DangerousReport, ToolConfusion, tool_confusion
from pathgrade.metrics.tool.layer import (
    InvalidCall,
    RunToolResult,
    ToolLayerReport,
    ToolLayerResult,
    tool_layer,
)
from pathgrade.metrics.tool.schemas import (
    SchemaViolation,
    ToolSet,
    ToolSpec,
    schema_problem,
    schema_violations,
)
from pathgrade.metrics.tool.state import StateDifference, state_diff
from pathgrade.metrics.tool.validators import (
    ENTRY_POINT_GROUP,
    Validator,
    register_validator,
    unregister_validator,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "CallComparison",
    "DangerousReport",
    "FieldResult",
    "InvalidCall",
    "RunToolResult",
    "SchemaViolation",
    "StateDifference",
    "ToolConfusion",
    "ToolLayerReport",
    "ToolLayerResult",
    "ToolSet",
    "ToolSpec",
    "Validator",
    "json_equal",
    "register_validator",
    "schema_problem",
    "schema_violations",
    "state_diff",
    "tool_confusion",
    "tool_layer",
    "unregister_validator",
]
