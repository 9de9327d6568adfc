"""Echoes messages through a Keel WebSocket echo route with the websockets library (permessage-deflate
as MODE offers it) and prints one JSON line: the agreed extensions and, per message, whether its
echo came back equal.

usage: python3 websockets_echo.py ws://127.0.0.1:PORT/echo MODE
"""
import json
import sys

from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.sync.client import connect

uri, mode = sys.argv[1], sys.argv[2]
offers = {
    "default": {},  # websockets offers "permessage-deflate; client_max_window_bits" by default
    "no-context-takeover": {"extensions": [ClientPerMessageDeflateFactory(server_no_context_takeover=True,
                                                                         client_no_context_takeover=True)]},
    "small-client-window": {"extensions": [ClientPerMessageDeflateFactory(client_max_window_bits=9)]},
    "small-server-window": {"extensions": [ClientPerMessageDeflateFactory(server_max_window_bits=10)]},
}
options = offers[mode]
if options:
    options["compression"] = None  # the extension factory above instead of the default one

document = json.dumps([{"id": i, "name": f"capteur-{i % 7}", "unit": "°C", "value": 20 + i % 5} for i in range(60)])
messages = [document, document.encode(), "short", document * 20, bytes(range(256)) * 40, document]
echoes = []
with connect(uri, open_timeout=10, close_timeout=10, max_size=2 ** 22, **options) as ws:
    agreed = ws.response.headers.get("Sec-WebSocket-Extensions")
    for message in messages:
        ws.send(message)
        echoes.append(ws.recv(timeout=10) == message)
    ws.send([document[:1000], document[1000:2000], document[2000:]])  # one message in three fragments
    echoes.append(ws.recv(timeout=10) == document)
print(json.dumps({"extensions": agreed, "echoes": echoes}))
