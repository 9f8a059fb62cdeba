function C = m2cu_cmtimes(A, B)
%M2CU_CMTIMES  A * B of two matrices of which one at least is complex (MATLAB's mtimes).
%   Each element of C is the sum of the products A(i, k) * B(k, j) in order of k, in complex
%   arithmetic; a thread per element of C on the GPU, OpenMP over them on the CPU. Octave
%   calls BLAS (zgemm), whose order of the sums is its own, so C agrees with Octave's to
%   rounding. Inner extents are checked with MATLAB's message; an operand that is 1-by-1 only
%   when the program runs stops with m2cu's reason, as for real operands. With finite values the
%   result equals the reference BLAS's (zgemm, zgemv, zherk, zdotc: each element summed in the
%   same order, each product the same two real products); an Inf or NaN stops with m2cu's
%   reason, since those routines spread them in ways of their own.
if size(A, 2) ~= size(B, 1)
  if numel(A) == 1 || numel(B) == 1
    error('m2cu:mtimes', 'm2cu: an operand of `*` is 1-by-1 only when the program runs: MATLAB multiplies each element of the other by it, a result whose shape the translated types cannot hold (give that input a scalar type, or write `.*`).');
  end
  error('Incorrect dimensions for matrix multiplication. Check that the number of columns in the first matrix matches the number of rows in the second matrix. To operate on each element of the matrix individually, use TIMES (.*) for elementwise multiplication.');
end
if ~(all(isfinite(real(A(:))) & isfinite(imag(A(:)))) && all(isfinite(real(B(:))) & isfinite(imag(B(:)))))
  error('m2cu:mtimes', 'm2cu: a complex matrix product of Inf or NaN values: BLAS propagates them through its own steps (a real operand made complex, a scale by 1, Hermitian products mirrored), which m2cu does not reproduce yet; test isfinite first.');
end
m = size(A, 1);
n = size(B, 2);
C = complex(zeros(m, n));
for j = 1:n
  for i = 1:m
    s = complex(0, 0);
    for k = 1:size(A, 2)
      s = s + A(i, k) * B(k, j);
    end
    C(i, j) = s;
  end
end
end
