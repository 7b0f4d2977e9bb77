"""The referee loop and the rules flows: read new posts, hand each duel to its ruleset's flow,
store the drafts it returns; deadlines, overrides, violations, dice checks and replays beside them.
See docs/architecture.md."""
