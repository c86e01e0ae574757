// Tests for PushCore live in this folder, one file per concept.
