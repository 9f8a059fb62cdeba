function s = builtin_rowsum(A)
% bench, Octave's builtin for bench_rowsum: sum along the rows.
s = sum(A, 2);
end
