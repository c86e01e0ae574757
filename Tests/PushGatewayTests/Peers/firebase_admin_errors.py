"""Sends one message per error case to pushlab's gateway with the real firebase-admin SDK and
prints how firebase-admin parsed each answer: the independent check of the emulator's FCM
error bodies (docs/specs/fcm.md, "Errors").

usage: firebase_admin_errors.py BASE_URL SERVICE_ACCOUNT CASES_JSON
BASE_URL is the gateway's https URL (trusted through REQUESTS_CA_BUNDLE); CASES_JSON is a list
of {"name", "token", "project"?, "data"?, "bearer"?}. A case with "bearer" sends that access
token (or, for "sdk", the token the SDK holds) with plain `requests` and hands the error to
firebase-admin's own FCM error handler: the SDK always fetches a valid token itself, and its
google-auth session answers a 401 by refreshing the token and sending again. Prints one JSON line per case:
{"name", "status", "fcm_error_code", "exception", "code", "message"}.
Transport retries are off, so each case is one request.
"""
import json, sys

import requests
import firebase_admin
from firebase_admin import credentials, messaging

base, account_path, cases = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
cred = credentials.Certificate(account_path)


def service(project):
    name = "app-" + project
    try:
        app = firebase_admin.get_app(name)
    except ValueError:
        app = firebase_admin.initialize_app(cred, {"projectId": project}, name=name)
    svc = messaging._get_messaging_service(app)
    svc._client.session.mount("https://", requests.adapters.HTTPAdapter(max_retries=0))
    return svc


def fcm_error_code(response):
    try:
        for detail in response.json().get("error", {}).get("details", []):
            if detail.get("@type") == "type.googleapis.com/google.firebase.fcm.v1.FcmError":
                return detail.get("errorCode")
    except ValueError:
        return "<not json>"
    return None


for case in cases:
    project = case.get("project", cred.project_id)
    svc = service(project)
    message = messaging.Message(token=case["token"], data=case.get("data"))
    result = {"name": case["name"]}
    try:
        if "bearer" in case:
            bearer = svc._credential.token if case["bearer"] == "sdk" else case["bearer"]
            response = requests.post(base + f"/v1/projects/{project}/messages:send",
                                     headers={"authorization": "Bearer " + bearer},
                                     json={"message": svc.encode_message(message)})
            response.raise_for_status()
        else:
            svc.send(message)
        result.update(status=200, exception=None)
    except requests.exceptions.HTTPError as error:
        parsed = svc._handle_fcm_error(error)
        result.update(status=error.response.status_code, fcm_error_code=fcm_error_code(error.response),
                      exception=type(parsed).__name__, code=parsed.code, message=str(parsed))
    except firebase_admin.exceptions.FirebaseError as error:
        response = error.http_response
        result.update(status=response.status_code if response is not None else None,
                      fcm_error_code=fcm_error_code(response) if response is not None else None,
                      exception=type(error).__name__, code=error.code, message=str(error))
    print(json.dumps(result), flush=True)
