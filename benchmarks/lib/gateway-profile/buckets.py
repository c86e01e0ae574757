#!/usr/bin/env python3
# buckets.py PERF_SCRIPT N → server CPU µs per request per bucket: each sample (perf script
# -F ip,sym --no-inline, demangled; 2999 samples per CPU-second) goes to the first bucket in B
# whose frame is on its stack; "socket I/O, TLS, event loop" takes the rest.
import sys, collections
path, N = sys.argv[1], int(sys.argv[2])
B = [
 ("route › record (PackedPush into the ring)", "PushRecordStore.add"),
 ("route › APNs header rules (APNsRequestRules)", "static APNsRequestRules.firstViolation"),
 ("route › headers read into APNsRequest", "APNsRequest.add(wireField"),
 ("route › provider token (cached per connection)", "APNsAuthorizer.authorize"),
 ("route › payload skim (JSON object? delivery id)", "static JSONObjectSkimmer.skim"),
 ("route › payload skim (JSON object? delivery id)", "specialized static JSONObjectSkimmer.skim"),
 ("route › device registry lookup", "DeviceRegistry.lookup"),
 ("route › ids (apns-id, FCM message id)", "MessageIDs."),
 ("route › delivery sink", "protocol witness for PushDeliverySink"),
 ("route › FCM one pass (FCMSendRequest.onePass: checks and typed message)", "static FCMSendRequest.onePass"),
 ("route › FCM one pass (FCMCheckedSend: the same checks, only the target typed)", "FCMCheckedSend.init(onePass"),
 ("route › FCM JSON parse", "static JSONDocument.parse"),
 ("route › FCM validator (FCMChecks, duplicate keys)", "Validator.validate"),
 ("route › FCM typed message (FCMSendRequest)", "FCMSendRequest.init"),
 ("route › FCM access token", "FCMSendRoute.authorize"),
 ("route › rest of the route (answer, glue)", "APNsRoute.handle"),
 ("route › rest of the route (answer, glue)", "FCMSendRoute.handle"),
 ("router match", "Router.match"),
 ("response header block + nghttp2 submit", "HTTP2Session.respond"),
 ("response frames + HPACK encode (nghttp2 mem_send)", "HTTP2Session.flush"),
 ("request: pooled stream setup", "HTTP2Session.beginHeaders"),
 ("request: header fields filed", "HTTP2Session.header("),
 ("request: assembly, dispatch glue", "HTTP2Session.frameReceived"),
 ("nghttp2 input (frame parsing, HPACK decode)", "nghttp2_session_mem_recv"),
 ("socket I/O, TLS, event loop", ""),
]
stacks=[s for s in open(path).read().split('\n\n') if s.strip()]
c=collections.Counter(); order=[]
for label,_ in B:
    if label not in order: order.append(label)
for st in stacks:
    names=[ (l.strip().split(None,1)+[''])[1] for l in st.strip().split('\n') if l.strip()]
    for label,pat in B:
        if pat=="" or any(n.startswith(pat) for n in names):
            c[label]+=1; break
us=lambda n: n*1e6/2999/N
for label in order:
    if c[label]: print("%s\t%.2f" % (label, us(c[label])))
print("total\t%.2f" % us(len(stacks)))
