/// A push's id: `p_` + 26 characters (time-ordered, random tail). Assigned by the API.
public typealias PushID = String
