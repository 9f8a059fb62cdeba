function y = bench_mtimesv(A, x)
% bench: a matrix times a column (n-by-n times n-by-1).
y = A * x;
end
