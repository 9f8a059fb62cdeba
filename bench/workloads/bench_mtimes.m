function C = bench_mtimes(A, B)
% bench: the matrix product of two matrices (n-by-n times n-by-n).
C = A * B;
end
