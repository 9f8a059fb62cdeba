function c = builtin_prefix(x)
% bench, Octave's builtin for bench_prefix: cumsum.
c = cumsum(x);
end
