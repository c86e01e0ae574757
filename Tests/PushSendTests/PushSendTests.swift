// Tests for PushSend live in this folder, one file per concept.
