function c = builtin_count(x)
% bench, Octave's builtin for bench_count: nnz of a comparison.
c = nnz(x > 0.5);
end
