"""Type stubs for the compiled extension ``pabi._core`` (checked by ``mypy.stubtest``).

The functions take equally long contiguous 1-D float64 arrays and return a new 1-D float64
array; the public wrappers in ``pabi`` handle scalars, broadcasting and dtype conversion.
"""

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "DomainError",
    "__version__",
    "gaussian_tail",
    "get_num_threads",
    "lambertw",
    "laplace_theta",
    "laplace_theta_complement",
    "log_gaussian_tail",
    "log_theta",
    "log_theta_complement",
    "set_num_threads",
    "simd_level",
    "theta",
    "theta_complement",
    "wright_omega",
]

_Arr = npt.NDArray[np.float64]

class DomainError(ValueError):
    param: str
    allowed: str
    value: float
    index: int | tuple[int, ...] | None

def gaussian_tail(x: _Arr) -> _Arr: ...
def log_gaussian_tail(x: _Arr) -> _Arr: ...
def lambertw(x: _Arr) -> _Arr: ...
def wright_omega(x: _Arr) -> _Arr: ...
def theta(x: _Arr, y: _Arr) -> _Arr: ...
def log_theta(x: _Arr, y: _Arr) -> _Arr: ...
def theta_complement(x: _Arr, y: _Arr) -> _Arr: ...
def log_theta_complement(x: _Arr, y: _Arr) -> _Arr: ...
def laplace_theta(x: _Arr, y: _Arr) -> _Arr: ...
def laplace_theta_complement(x: _Arr, y: _Arr) -> _Arr: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def simd_level() -> str: ...
