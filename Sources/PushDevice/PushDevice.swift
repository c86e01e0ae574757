// PushDevice — see ../shared/design/architecture.md for this module's concern.
