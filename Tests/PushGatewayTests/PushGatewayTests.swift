// Tests for PushGateway live in this folder, one file per concept.
