"""The manager: plan validation, scheduling and budget enforcement."""
