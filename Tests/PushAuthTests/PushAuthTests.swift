// Tests for PushAuth live in this folder, one file per concept.
