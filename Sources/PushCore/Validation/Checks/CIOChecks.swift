import Foundation

/// Customer.io rules: the delivery keys, `CIO.push.image`/`link`, and what the NSE needs to run
/// (docs/specs/device-side.md §1–2).
enum CIOChecks {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "gif"]
    /// The keys of `CIO.push` the SDK reads, for the "did you mean" of another.
    static let pushKeyNames: KnownNames = ["image", "link"]

    static func payload(_ top: JSONObject, base: JSONPointer, aps: JSONObject?, implied: APNsChecks.Implied,
                        into c: inout FindingCollector) {
        let id = top[CIOPush.deliveryIDKey], token = top[CIOPush.deliveryTokenKey]
        for (key, value) in [(CIOPush.deliveryIDKey, id), (CIOPush.deliveryTokenKey, token)] {
            if let value, value.stringValue == nil {
                c.report(RuleCatalog.cioDeliveryType, base / key, "\(key) is \(value.describedForMessage); the SDK only accepts a string")
            }
        }
        if (id == nil) != (token == nil) {
            let present = id == nil ? CIOPush.deliveryTokenKey : CIOPush.deliveryIDKey
            let missing = id == nil ? CIOPush.deliveryIDKey : CIOPush.deliveryTokenKey
            c.report(RuleCatalog.cioDeliveryPair, base / present, "\(present) is present but \(missing) is missing")
        }
        let isCIO = id?.stringValue != nil && token?.stringValue != nil
        if isCIO, id?.stringValue == "" || token?.stringValue == "" {
            c.report(RuleCatalog.cioDeliveryEmpty, base / (id?.stringValue == "" ? CIOPush.deliveryIDKey : CIOPush.deliveryTokenKey),
                     "an empty delivery \(id?.stringValue == "" ? "id" : "token")")
        }

        var image: String?
        if let cio = top["CIO"] {
            let cp = base / "CIO"
            if let cioObject = cio.objectValue {
                for key in [CIOPush.deliveryIDKey, CIOPush.deliveryTokenKey] where cioObject[key] != nil {
                    c.report(RuleCatalog.cioMisplaced, cp / key, "\(key) is inside CIO; it belongs at the top level")
                }
                switch cioObject["push"] {
                case .object(let push)?:
                    image = pushBlock(push, at: cp / "push", into: &c)
                case nil:
                    c.report(RuleCatalog.cioType, cp, "CIO has no \"push\" object", fix: "nest image and link as \"CIO\": {\"push\": {…}}")
                case let v?:
                    c.report(RuleCatalog.cioType, cp / "push", "CIO.push is \(v.describedForMessage)")
                }
            } else {
                c.report(RuleCatalog.cioType, cp, "CIO is \(cio.describedForMessage)")
            }
        }

        // The NSE runs only for mutable-content 1 and a visible alert (docs/specs/device-side.md §2).
        guard isCIO || image != nil else { return }
        let lost = [image != nil ? "the image" : nil, isCIO ? "the delivered metric" : nil].compactMap { $0 }.joined(separator: " and ")
        let mutable = aps?["mutable-content"]
        let mutableIsWrongType = mutable != nil && mutable?.numberValue == nil  // already an aps.mutable-content.type error
        if !implied.mutableContent, !APS.isOne(mutable), !mutableIsWrongType {
            c.report(RuleCatalog.cioMutableContent, aps == nil ? base : base / "aps",
                     "this Customer.io push has no \"mutable-content\": 1, so the NSE never runs and \(lost) \(lost.contains(" and ") ? "are" : "is") lost")
        }
        let showsAlert = aps.map(CIOChecks.showsAlert) ?? false
        if !implied.alert, !showsAlert {
            c.report(RuleCatalog.cioAlertRequired, aps == nil ? base : base / "aps",
                     "this Customer.io push shows no alert, so the NSE does not run and \(lost) \(lost.contains(" and ") ? "are" : "is") lost")
        }
    }

    /// iOS shows an alert when aps.alert has some text (a string, or title/subtitle/body/loc keys).
    static func showsAlert(_ aps: JSONObject) -> Bool {
        switch aps["alert"] {
        case .string(let s)?: return !s.isEmpty
        case .object(let a)?:
            for key in ["title", "subtitle", "body", "title-loc-key", "loc-key"] {
                if let s = a[key]?.stringValue, !s.isEmpty { return true }
            }
            return false
        default: return false
        }
    }

    /// Checks `CIO.push`; returns the image URL string when there is one.
    static func pushBlock(_ push: JSONObject, at p: JSONPointer, into c: inout FindingCollector) -> String? {
        var image: String?
        for m in push.members {
            let mp = { p / m.key }  // built only when a finding is kept
            switch m.key {
            case "image":
                guard let s = m.value.stringValue else {
                    c.report(RuleCatalog.cioImageType, mp(), "CIO.push.image is \(m.value.describedForMessage)")
                    continue
                }
                if s.isEmpty { continue }  // the SDK treats an empty image as none
                image = s
                imageURL(s, at: mp(), into: &c)
            case "link":
                guard let s = m.value.stringValue else {
                    c.report(RuleCatalog.cioLinkType, mp(), "CIO.push.link is \(m.value.describedForMessage)")
                    continue
                }
                if s.isEmpty { continue }
                guard let url = URLShape(s), url.host.map({ !$0.isEmpty }) ?? !url.isWeb else {
                    c.report(RuleCatalog.cioLinkURL, mp(), "CIO.push.link \"\(s)\" is not a valid URL")
                    continue
                }
                if url.isWeb, url.scheme != url.lowercasedScheme {
                    c.report(RuleCatalog.cioLinkSchemeCase, mp(), "the link's scheme is \"\(url.scheme)\"", fix: "write \(url.lowercasedScheme):// in lowercase")
                }
            case CIOPush.deliveryIDKey, CIOPush.deliveryTokenKey:
                c.report(RuleCatalog.cioMisplaced, mp(), "\(m.key) is inside CIO.push; it belongs at the top level")
            default:
                let hint = {  // built only when the finding is kept
                    pushKeyNames.closest(to: m.key)
                        ?? (["imageurl", "image_url", "picture", "media", "attachment-url"].contains(m.key.lowercased()) ? "image" : nil)
                        ?? (["deeplink", "deep_link", "url", "deep-link", "href"].contains(m.key.lowercased()) ? "link" : nil)
                }
                c.report(RuleCatalog.cioPushUnknownKey, mp(), "CIO.push.\(m.key) is not read by the SDK" + (hint().map { " — did you mean \"\($0)\"?" } ?? ""))
            }
        }
        return image
    }

    static func imageURL(_ s: String, at p: JSONPointer, into c: inout FindingCollector) {
        guard let url = URLShape(s), let host = url.host, !host.isEmpty else {
            c.report(RuleCatalog.cioImageURL, p, "CIO.push.image \"\(s.prefix(80))\" is not an absolute URL")
            return
        }
        if url.lowercasedScheme != "https" {
            c.report(RuleCatalog.cioImageHTTPS, p, "the image URL uses \(url.scheme)://; iOS only loads https images in the NSE",
                     fix: url.lowercasedScheme == "http" ? "use https://\(host)\(url.path)" : nil)
        }
        let ext = url.pathExtension
        if ext.isEmpty {
            c.report(RuleCatalog.cioImageNoExtension, p,
                     "the image URL path has no file extension; iOS attaches it only if the server sends an image Content-Type (JPEG, PNG, GIF) or a Content-Disposition file name")
        } else if !imageExtensions.contains(ext) {
            let detail = ext == "bmp" ? "ends in .bmp, which iOS may not display" : "ends in .\(ext)"
            c.report(RuleCatalog.cioImageExtension, p, "the image URL path \(detail); iOS attachments must be .jpg, .jpeg, .png or .gif")
        }
    }
}
