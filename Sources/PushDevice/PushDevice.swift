// PushDevice — see docs/architecture.md for this module's concern.
