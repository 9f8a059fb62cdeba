function s = builtin_sum(x)
% bench, Octave's builtin for bench_sum: sum.
s = sum(x);
end
