function [m, k] = builtin_minloc(x)
% bench, Octave's builtin for bench_minloc: min with its index.
[m, k] = min(x);
end
