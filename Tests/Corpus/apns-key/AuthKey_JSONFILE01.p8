{"not":"a key"}
