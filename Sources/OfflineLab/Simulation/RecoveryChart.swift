import Foundation

/// Draws recovery ratio against kill rate, one line per store, as a small standalone SVG.
public enum RecoveryChart {
    public struct Point: Sendable {
        public var killRate: Double
        public var recoveryRatio: Double
        public init(killRate: Double, recoveryRatio: Double) {
            self.killRate = killRate
            self.recoveryRatio = recoveryRatio
        }
    }

    public static func svg(series: [(name: String, points: [Point])], title: String) -> String {
        let width = 640.0, height = 400.0, left = 70.0, right = 150.0, top = 40.0, bottom = 60.0
        let plotW = width - left - right, plotH = height - top - bottom
        let maxX = max(series.flatMap { $0.points.map(\.killRate) }.max() ?? 1, 0.01)
        func x(_ v: Double) -> Double { left + v / maxX * plotW }
        func y(_ v: Double) -> Double { top + (1 - v) * plotH }
        let colors = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]
        // Dashes keep lines that coincide (e.g. two stores at 100%) both visible.
        let dashes = ["", "8 5", "2 4", "12 4 2 4", "4 4"]
        var s = #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" font-family="sans-serif" font-size="12">"#
        s += #"<rect width="100%" height="100%" fill="white"/>"#
        s += #"<text x="\#(width / 2)" y="22" text-anchor="middle" font-size="14">\#(escape(title))</text>"#
        for i in 0...5 {
            let v = Double(i) / 5
            s += #"<line x1="\#(left)" y1="\#(y(v))" x2="\#(left + plotW)" y2="\#(y(v))" stroke="lightgray"/>"#
            s += #"<text x="\#(left - 8)" y="\#(y(v) + 4)" text-anchor="end">\#(Int(v * 100))%</text>"#
            let xv = maxX * Double(i) / 5
            s += #"<text x="\#(x(xv))" y="\#(top + plotH + 18)" text-anchor="middle">\#(Int((xv * 100).rounded()))%</text>"#
        }
        s += #"<line x1="\#(left)" y1="\#(top + plotH)" x2="\#(left + plotW)" y2="\#(top + plotH)" stroke="black"/>"#
        s += #"<line x1="\#(left)" y1="\#(top)" x2="\#(left)" y2="\#(top + plotH)" stroke="black"/>"#
        s += #"<text x="\#(left + plotW / 2)" y="\#(height - 18)" text-anchor="middle">extension kill rate (killed before the delivered metric completed)</text>"#
        s += #"<text transform="translate(18 \#(top + plotH / 2)) rotate(-90)" text-anchor="middle">recovery ratio</text>"#
        for (i, line) in series.enumerated() {
            let color = colors[i % colors.count]
            let pts = line.points.map { "\(x($0.killRate)),\(y($0.recoveryRatio))" }.joined(separator: " ")
            let dash = dashes[i % dashes.count].isEmpty ? "" : #" stroke-dasharray="\#(dashes[i % dashes.count])""#
            if line.points.count > 1 { s += #"<polyline points="\#(pts)" fill="none" stroke="\#(color)" stroke-width="2.5"\#(dash)/>"# }
            for p in line.points { s += #"<circle cx="\#(x(p.killRate))" cy="\#(y(p.recoveryRatio))" r="3.5" fill="\#(color)"/>"# }
            let ly = top + 10 + Double(i) * 20
            s += #"<line x1="\#(left + plotW + 15)" y1="\#(ly)" x2="\#(left + plotW + 35)" y2="\#(ly)" stroke="\#(color)" stroke-width="2.5"\#(dash)/>"#
            s += #"<text x="\#(left + plotW + 40)" y="\#(ly + 4)">\#(escape(line.name))</text>"#
        }
        return s + "</svg>\n"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
