// Tests for PushMetrics live in this folder, one file per concept.
