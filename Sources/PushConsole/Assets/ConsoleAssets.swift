/// The console's page, script and style: `console.html`, `app.js` and `app.css` beside this
/// file, embedded in the binary when it is built (Package.swift: `.embedInCode`), so an
/// installed pushlab serves them with no files beside it and nothing is downloaded at run time.
/// The script is vanilla JavaScript, no libraries; `ConsoleAssetsTests` checks it parses.
enum ConsoleAssets {
    static let page = String(decoding: PackageResources.console_html, as: UTF8.self)
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)
    static let style = String(decoding: PackageResources.app_css, as: UTF8.self)
}
