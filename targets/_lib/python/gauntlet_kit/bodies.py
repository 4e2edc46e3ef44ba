"""The contract's fixed response bodies, as bytes, and the templates of the two clock bodies.

The templates are %-formatted in place by the handlers (no function call on the hot path):
TIME % int(time.time()), EVENT % int(time.time() * 1000).
"""

JSON = "application/json; charset=utf-8"  # every response's Content-Type
HEALTHZ = b'{"status":"ok"}'
PING = b'{"ok":true,"message":"OK"}'
DEVICES = (
    b'[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},'
    b'{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},'
    b'{"id":5,"type":"sensor","on":true}]'
)
TIME = b'{"serverTime":%d}'
EVENT = b'{"event":"motion","deviceId":5,"ts":%d}'
