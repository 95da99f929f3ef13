"""The exceptions kiln raises. Each carries the message the `kiln` command
line prints after "error:" for the same bad input; where the CLI names a
.npy file, Python names the input instead.

Every class derives from kiln.Error and from the built-in exception a
Python programmer would catch for it (ValueError, FileNotFoundError, ...).
"""


class Error(Exception):
    """Any error reported by Kiln. `code` is the status code's name."""

    code = "UNKNOWN"


class InvalidArgumentError(Error, ValueError):
    """Bad input: a malformed model or module, wrong dtype, shape or count."""

    code = "INVALID_ARGUMENT"


class NotFoundError(Error, FileNotFoundError):
    """A file or name that does not exist."""

    code = "NOT_FOUND"


class UnsupportedError(Error, NotImplementedError):
    """Something Kiln does not support yet (an ONNX op, an opset, ...)."""

    code = "UNIMPLEMENTED"


class ResourceExhaustedError(Error, MemoryError):
    """Out of memory, or a workspace beyond the limits."""

    code = "RESOURCE_EXHAUSTED"


class FailedPreconditionError(Error):
    """A run that cannot proceed (e.g. a model requirement the inputs break)."""

    code = "FAILED_PRECONDITION"


class NumericsError(Error, ArithmeticError):
    """run(check_nan=True) found a NaN or Inf; the message names the dispatch,
    its ONNX nodes and the value."""

    code = "NON_FINITE"


class BuildError(Error):
    """Building an AOT bundle with make failed; the message holds make's output."""

    code = "BUILD"


_BY_CODE = {
    cls.code: cls
    for cls in (InvalidArgumentError, NotFoundError, UnsupportedError, ResourceExhaustedError,
                FailedPreconditionError, NumericsError)
}
_BY_CODE["*"] = Error


def _register(native):
    native._set_error_classes(_BY_CODE)
