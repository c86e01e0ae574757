// Tests for PushDevice live in this folder, one file per concept.
