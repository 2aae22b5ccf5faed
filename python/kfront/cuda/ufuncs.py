"""@cuda.reduce, vectorize(..., target="cuda") and guvectorize(..., target="cuda") as numba.cuda has them.

Each decorated function becomes a kfront program whose generated kernels (kfront's frontend writes them, see
frontend/compile.h) the runtime calls through kf_reduce, kf_ufunc_call and kf_gufunc_call (runtime/host_funcs.c):
broadcasting, signature selection and the launch are the C library's, so every embedder gets the same
behaviour. Host inputs give host outputs; device inputs give device arrays, as in Numba. A call runs on the
calling thread's current device (device arrays of another device are refused, naming both).
"""
import numpy as np

from kfront import _capture, _kfront, _pickle, _source, errors, types
from kfront.cuda import _runtime, devicearray
from kfront.cuda.dispatcher import _Inputs, _dispatchers, _registry, _small_grid, _warn_low_occupancy, source_now

# the most threads per block of the elementwise launches (runtime/host_funcs.c: MAX_BLOCK)
_ELEMENTWISE_BLOCK = 256


def _warn_small_launch(iterations):
    """numba-cuda launches a ufunc or gufunc as kernel.forall(iterations), a configured launch that warns of a grid
    of fewer than 128 blocks; kfront's launch of `iterations` has ceil(iterations / 256) blocks (grid-stride beyond
    32 per multiprocessor)."""
    grid = (max(int(iterations), 1) + _ELEMENTWISE_BLOCK - 1) // _ELEMENTWISE_BLOCK
    if _small_grid((grid, 1, 1)) is not None:
        _warn_low_occupancy((grid, 1, 1), stacklevel=4)


class _Generated:
    """What Reduce, CUDAUFunc and CUDAGUFunc share: the function, its frozen inputs, its program."""

    _kind = None

    def __init__(self, py_func, sigs=(), layout=None, source=None):
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "function")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self._sigs = [types.normalize_signature(s) for s in sigs]
        self._layout = layout
        self._source = source_now(py_func) if source is None else source  # taken now, as a dispatcher's
        self._inputs = None
        self._functions = {}  # device ordinal -> _kfront.Function (a program per device, as dispatchers have)
        self._launchers = {}
        _dispatchers.add(self)

    def _spec_options(self):
        out = {"layout": self._layout} if self._layout else {}
        return out

    def _frozen(self):
        if self._inputs is None:
            self._inputs = _Inputs(self)
        return self._inputs

    def _fn(self):
        """The function on the calling thread's current device (where the call runs)."""
        dev = _kfront.current_device()
        f = self._functions.get(dev)
        if f is None:
            inputs = self._frozen()
            program = _kfront.Program(_runtime.runtime(dev), inputs.sources, inputs.binding_list(), inputs.specs)
            f = self._functions[dev] = program.function(_capture.compiled_name(self.py_func))
        return f

    # -- pickling: as a dispatcher's (kfront._pickle), the function by value with its source; nothing compiled
    def __reduce__(self):
        source = None if isinstance(self._source, BaseException) else self._source
        return (_pickle.new_dispatcher, (type(self),),
                {"function": _pickle.function_state(self.py_func, _registry(), source and source[1]),
                 "signatures": list(self._sigs), "layout": self._layout, "source": source})

    def __setstate__(self, state):
        _Generated.__init__(self, _pickle.rebuild_function(state["function"]), state["signatures"],
                            state["layout"], source=state["source"])


def _any_device(args):
    return any(devicearray.is_cuda_array(a) for a in args)


def _new_output(typestr, shape, device, stream):
    if device:
        return devicearray.device_array(shape, np.dtype(typestr), stream=stream)
    return np.empty(shape, dtype=np.dtype(typestr))


class Reduce(_Generated):
    """@cuda.reduce: `f(arr, size=None, res=None, init=0, stream=0)` reduces a 1-D host or device array."""

    _kind = "reduce"

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        s = _runtime.stream_arg(stream)
        if not devicearray.is_cuda_array(arr):
            arr = np.asarray(arr)
        return self._fn().reduce(arr, -1 if size is None else int(size), init, s, res, res is None)


def reduce(fn):
    return Reduce(fn)


Reduce.__init__.__doc__ = "The @cuda.reduce decorator: fn(a, b) must be associative and commutative."


def _with_return_type(py_func, sig):
    """sig as text with its return type: numba's vectorize also takes argument types alone (`[(datetime_t,
    datetime_t)]`), the return type then being the one typing the function for them gives."""
    text = types.normalize_signature(sig)
    try:
        args, ret = types.parse_signature(text)
    except TypeError:  # (one kfront.types cannot read back: the compiler reads it)
        return text
    if ret is not None:
        return text
    from kfront.cuda.compiler import _inferred_return_type
    return types.normalize_signature(types.signature(_inferred_return_type(py_func, text), *args))


class CUDAUFunc(_Generated):
    """A @vectorize(..., target="cuda") function: elementwise over broadcast inputs, `out=` optional."""

    _kind = "vectorize"
    _reducer = None  # the Reduce of the same function, made by the first reduce()

    def __init__(self, py_func, sigs=(), layout=None, source=None):
        super().__init__(py_func, [_with_return_type(py_func, s) for s in sigs], layout, source)

    def __call__(self, *args, out=None, stream=0):
        f = self._fn()
        s = _runtime.stream_arg(stream)
        inputs = tuple(a if devicearray.is_cuda_array(a) or isinstance(a, (bool, int, float, np.generic))
                       else np.asarray(a) for a in args)
        scalars_only = all(not hasattr(a, "shape") or getattr(a, "shape", None) == () for a in inputs)
        if out is not None and devicearray.is_cuda_array(out):
            out = devicearray.as_cuda_array(out)  # (what is returned: a device array, as numba-cuda's)
        if out is None:
            typestr, shape = f.ufunc_result(inputs)
            out = _new_output(typestr, shape, _any_device(inputs), stream)
        _warn_small_launch(np.prod(out.shape))
        f.ufunc_call(inputs, out, s)
        if scalars_only and isinstance(out, np.ndarray) and out.shape == (1,):
            return out[0]
        return out

    def reduce(self, arg, stream=0):
        """numba-cuda's DeviceVectorize.reduce: the elements of arg (a 1-D host or device array) combined with the
        function, a scalar of arg's dtype; one element is itself, an empty array numba-cuda's TypeError. The
        function must be binary, and have a signature whose inputs and output are arg's dtype (numba-cuda calls
        the ufunc itself, with the output into its input). The reduction is @cuda.reduce's (Reduce, the same
        function): a tree, so the function must be associative and commutative, as numba-cuda's pairwise halves
        need it associative. Runs on stream (a stream, or 0 for the default) and returns when done."""
        sigs = [types.parse_signature(sig) for sig in self._sigs]
        if any(len(args) != 2 for args, _ in sigs):
            raise AssertionError("must be a binary ufunc")
        if not devicearray.is_cuda_array(arg):
            arg = np.asarray(arg)
        if arg.ndim != 1:
            raise AssertionError("must use 1d array")
        dtype = np.dtype(arg.dtype)
        if not any(all(types.as_dtype(t) == dtype for t in (*args, restype)) for args, restype in sigs):
            raise TypeError("kfront: %s.reduce of an array of %s needs a signature %s(%s, %s) (it has %s)"
                            % (self.__name__, dtype, dtype, dtype, dtype, ", ".join(map(str, self._sigs))))
        n = arg.shape[0]
        if n == 0:
            raise TypeError("Reduction on an empty array.")
        if n == 1:
            return arg[0]
        if self._reducer is None:  # the same function, source and bindings, as a @cuda.reduce
            self._reducer = Reduce(self.py_func, source=self._source)
        res = np.empty(1, dtype=dtype)
        # the first element is the reduction's init (@cuda.reduce combines init with the elements)
        self._reducer(arg[1:], res=res, init=arg[0], stream=stream)
        return res[0]


class CUDAGUFunc(_Generated):
    """A @guvectorize(..., layout, target="cuda") function, called as numba-cuda's: f(*inputs) makes the outputs,
    f(*inputs, *outputs) or f(*inputs, out=output) fills the ones given (out= is the output of a one-output
    function, a tuple of them otherwise); it returns the output(s), as host arrays when every argument is a host
    array, else as device arrays."""

    _kind = "guvectorize"

    def __call__(self, *args, out=None, stream=0):
        f = self._fn()
        info = f.info()
        s = _runtime.stream_arg(stream)
        nin, nout = info["nin"], info["nout"]
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if out is None and len(args) not in (nin, nin + nout):
            def count(n):
                return "%d positional argument%s" % (n, "s" * (n != 1))
            raise TypeError("This gufunc accepts %s (when providing input only) or %s (when providing input and "
                            "output). Got %s." % (count(nin), count(nin + nout), count(len(args))))
        # as numba-cuda's, another library's device array (the CUDA array interface) is taken as a device array
        args = tuple(devicearray.as_cuda_array(a) if devicearray.is_cuda_array(a) else
                     a if isinstance(a, (bool, int, float, np.generic)) else np.asarray(a) for a in args)
        args = self._cast_inputs(args, nin) + args[nin:]
        if out is not None:
            outs = tuple(out) if nout > 1 else (out,)
            if len(outs) != nout:
                raise TypeError("kfront: %s has %d outputs: out= must be a tuple of %d arrays" % (self.__name__, nout, nout))
            args = args + tuple(devicearray.as_cuda_array(o) if devicearray.is_cuda_array(o) else np.asarray(o)
                                for o in outs)
        loops = np.prod(f.gufunc_result(args[:nin], nout)[0][1][:self._loop_ndim(info, nin)])
        _warn_small_launch(loops)
        if len(args) == nin + nout:
            shapes = [shape for _, shape in f.gufunc_result(args[:nin], nout)]
            for given, shape in zip(args[nin:], shapes):
                if tuple(given.shape) != tuple(shape):
                    raise ValueError("output shape mismatch")
            f.gufunc_call(args, s)
            outs = args[nin:]
        else:
            device = _any_device(args)
            outs = tuple(_new_output(ts, shape, device, stream) for ts, shape in f.gufunc_result(args, nout))
            f.gufunc_call(args + outs, s)
        return outs[0] if nout == 1 else outs

    def _input_dtypes(self):
        """Per signature, its inputs' NumPy dtypes (None for one kfront.types cannot read back)."""
        out = []
        for sig in self._sigs:
            try:
                argtypes, _ = types.parse_signature(sig)
                out.append([types.as_dtype(t.dtype if isinstance(t, types.Array) else t) for t in argtypes])
            except (TypeError, ValueError, errors.KfrontError):
                out.append(None)
        return out

    def _cast_inputs(self, args, nin):
        """The inputs as numba-cuda's GUFunc takes them: when no signature has their dtypes exactly, the first
        signature each of whose input types NumPy can cast safely *to* the input's dtype (so an int64 scalar or array
        is taken as int32 for an int32 signature, its values cast), the inputs cast to it with astype — a device
        array cannot be, numba-cuda's TypeError; else unchanged (kfront's runtime then converts safely, or says
        no signature matches)."""
        inputs = args[:nin]
        actual = [np.asarray(a).dtype if not devicearray.is_cuda_array(a) else np.dtype(a.dtype) for a in inputs]
        candidates = [d for d in self._input_dtypes() if d is not None and len(d) >= nin]
        if not candidates or any(d[:nin] == actual for d in candidates):
            return inputs
        for d in candidates:
            if all(np.can_cast(want, got) for want, got in zip(d, actual)):
                break
        else:
            return inputs
        cast = []
        for a, want, got in zip(inputs, d, actual):
            if want != got:
                if devicearray.is_cuda_array(a) or not hasattr(np.asarray(a), "astype"):
                    raise TypeError("compatible signature is possible by casting but %s does not support .astype()"
                                    % type(a))
                a = np.asarray(a).astype(want)
            cast.append(a)
        return tuple(cast)

    @staticmethod
    def _loop_ndim(info, nin):
        """-(the first output's core dimensions): its shape without them is the loop the launch runs over."""
        first_output = info["layout"].split("->")[1].split(")")[0]
        core = len([d for d in first_output.strip(" (,").split(",") if d.strip()])
        return -core if core else None


def _check_target(target, what):
    if target not in ("cuda", "gpu"):
        raise errors.UnsupportedError("kfront: %s(target=%r) is not supported: kfront compiles target=\"cuda\" only"
                                      % (what, target))


def _sig_list(sigs):
    if sigs is None:
        raise errors.UnsupportedError("kfront: a CUDA vectorize/guvectorize needs its signatures (lazy ufuncs are "
                                      "not supported)")
    return sigs if isinstance(sigs, list) else [sigs]


def _build(builder, sigs):
    """As numba's decorators drive a builder (kfront.cuda.vectorizers): each signature added, then the ufunc."""
    for sig in sigs:
        builder.add(sig)
    builder.disable_compile()
    return builder.build_ufunc()


def vectorize(ftylist_or_function=(), target="cpu", **kws):
    """numba.vectorize with target="cuda": the options are numba-cuda's decorator's (identity, cache) and its
    builder's (CUDAVectorize: nopython, redundant; any other a KeyError), checked when the function is given."""
    from kfront.cuda.vectorizers import CUDAVectorize
    _check_target(target, "vectorize")
    identity, cache = kws.pop("identity", None), kws.pop("cache", False)
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, (types.Type, types.Signature)):
        return CUDAUFunc(ftylist_or_function, _sig_list(None))
    sigs = _sig_list(ftylist_or_function)
    return lambda fn: _build(CUDAVectorize(fn, identity=identity, cache=cache, targetoptions=kws), sigs)


def guvectorize(*args, target="cpu", **kws):
    """numba.guvectorize(signatures, layout, target="cuda"): the options as numba-cuda's (identity, cache,
    writable_args; CUDAGUFuncVectorize refuses nopython=False and any other option with its TypeErrors)."""
    from kfront.cuda.vectorizers import CUDAGUFuncVectorize
    _check_target(target, "guvectorize")
    if len(args) == 2:
        sigs, layout = args
    elif len(args) == 1 and isinstance(args[0], str):
        raise errors.UnsupportedError("kfront: a CUDA guvectorize needs its signatures")
    else:
        raise TypeError("kfront: guvectorize(signatures, layout, target='cuda')")
    sigs = _sig_list(sigs)
    identity, cache = kws.pop("identity", None), kws.pop("cache", False)
    writable_args = kws.pop("writable_args", ())
    return lambda fn: _build(CUDAGUFuncVectorize(fn, layout, identity=identity, cache=cache, targetoptions=kws,
                                                 writable_args=writable_args), sigs)
