/// A target row's state column.
enum TargetRowState: Int {
    case waiting = 0
    case claimed = 1
    case finished = 2
}
