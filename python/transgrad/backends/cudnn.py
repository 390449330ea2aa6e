"""``transgrad.backends.cudnn``: settable flags with torch's defaults; nothing reads them (there
is no cuDNN), so setting ``deterministic`` or ``benchmark`` changes nothing, as on torch's CPU."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
