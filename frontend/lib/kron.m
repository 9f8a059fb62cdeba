function K = kron(A, B)
%KRON  The Kronecker product: the block matrix whose block (i, j) is A(i, j) * B, of the
%   class of A(1) * B(1). Integer operands are refused (MATLAB keeps the integer class, Octave 7
%   returns double).
if isinteger(A) || isinteger(B)
  m2cu_refuse('`kron` of integers: MATLAB keeps the integer class and Octave 7 returns double, so m2cu takes neither', ...
              'convert first for the double result, `kron(double(A), double(B))`');
end
[m, n] = size(A);
[p, q] = size(B);
K = zeros(m * p, n * q, 'like', A(1) * B(1));
for j = 1:n
  for i = 1:m
    for l = 1:q
      for k = 1:p
        K((i - 1) * p + k, (j - 1) * q + l) = A(i, j) * B(k, l);
      end
    end
  end
end
end
