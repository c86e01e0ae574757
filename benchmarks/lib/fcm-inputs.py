# The inputs of the FCM sender benchmarks (fcm-send.sh, client-ab.sh): a copy of the dev service
# account whose token_uri points at the push server, and COUNT registration-token-shaped targets.
#   python3 benchmarks/lib/fcm-inputs.py URL COUNT SA_OUT TOKENS_OUT
import json
import sys

url, count, sa_out, tokens_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sa = json.load(open("certs/fcm-service-account.json"))
sa["token_uri"] = url + "/token"
json.dump(sa, open(sa_out, "w"))
with open(tokens_out, "w") as f:
    for i in range(count):
        f.write("bench%06d:APA91b%s\n" % (i, "Xy9_-Q" * 24))
