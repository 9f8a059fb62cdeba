function m = builtin_max(x)
% bench, Octave's builtin for bench_max: max.
m = max(x);
end
