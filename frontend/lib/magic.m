function A = magic(n)
%MAGIC  The n-by-n magic square Octave builds (MATLAB's is the same): the siamese method for
%   odd n, the diagonal exchange for a multiple of 4, and four odd squares with exchanged
%   columns (LUX) otherwise; magic(0) is 0-by-0, magic(2) is [4 3; 1 2].
%
%   m2cu's own MATLAB source: Octave's magic.m with its index vectors written as loops.
n = fix(n);
if n < 0
  error('magic: N must be non-negative');
end
A = zeros(n, n);
if mod(n, 2) == 1
  A = odd_square(n);
elseif mod(n, 4) == 0
  for k = 1:n * n
    A(k) = (mod(k - 1, n)) * n + floor((k - 1) / n) + 1;
  end
  B = A;
  for i = 1:n
    for j = 1:n
      % The rows and columns congruent to 0 or 1 mod 4 (1-based: 1 and 4), and to 2 or 3,
      % take the element of the square turned half a turn.
      if corner_class(i) == corner_class(j)
        A(i, j) = B(n + 1 - i, n + 1 - j);
      end
    end
  end
elseif n > 0
  m = n / 2;
  Q = odd_square(m);
  A(1:m, 1:m) = Q;
  A(1:m, m + 1:n) = Q + 2 * m * m;
  A(m + 1:n, 1:m) = Q + 3 * m * m;
  A(m + 1:n, m + 1:n) = Q + m * m;
  k = (m - 1) / 2;
  for i = 1:m
    for j = 1:n
      swap = (k > 1 && ((j >= 2 && j <= k) || j >= n - k + 2)) || (j == 1 && i ~= k + 1) ...
             || (j == k + 1 && i == k + 1);
      if swap
        t = A(i, j);
        A(i, j) = A(i + m, j);
        A(i + m, j) = t;
      end
    end
  end
end
end

function A = odd_square(n)
% Octave's odd magic square: element k of 1:n*n goes to row r and column c computed from
% k's position along the shifted diagonals.
A = zeros(n, n);
for k = 1:n * n
  shift = floor((k - 1) / n);
  c = mod(k - shift + (n - 3) / 2, n);
  r = mod(n * n - k + 1 + 2 * shift, n);
  A(c * n + r + 1) = k;
end
end

function c = corner_class(i)
% 1 for the indices in [1:4:n, 4:4:n] (i mod 4 is 1 or 0), 2 for those in [2:4:n, 3:4:n].
if mod(i, 4) == 1 || mod(i, 4) == 0
  c = 1;
else
  c = 2;
end
end
