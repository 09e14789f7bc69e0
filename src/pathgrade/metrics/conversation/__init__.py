"""The conversation layer: metrics per turn and per conversation (docs/conversations.md)."""
