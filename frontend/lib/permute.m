function B = permute(A, order)
%PERMUTE  A with its dimensions rearranged: dimension d of B is dimension order(d) of A, for
%   order a permutation of 1:2 or 1:3 (of 1:3 for a 3-D A). permute(A, [2 1]) is A.'.
%   B(i1, i2, i3) = A(j1, j2, j3) with j(order(d)) = i(d), read through A's strides. The
%   order is checked with Octave's messages.
n = numel(order);
if n < ndims(A) || n > 3
  error('permute: invalid permutation vector');
end
for d = 1:n
  if ~(order(d) >= 1 && order(d) <= n && order(d) == fix(order(d)))
    error('permute: invalid permutation vector');
  end
  for e = 1:d - 1
    if order(e) == order(d)
      error('permute: permutation vector cannot contain identical elements');
    end
  end
end
if size(order, 2) == 2
  % Decided when translating for a literal order: a 2-D rearrangement is A or A.'.
  if order(1) == 2
    B = A.';
  else
    B = A;
  end
else
  B = three(A, order);
end
end

function B = three(A, order)
% The general 3-D rearrangement, one element per iteration of a parallel loop nest.
extent = [size(A, 1), size(A, 2), size(A, 3)];
stride = [1, extent(1), extent(1) * extent(2)];
m = extent(order(1));
n = extent(order(2));
p = extent(order(3));
s1 = stride(order(1));
s2 = stride(order(2));
s3 = stride(order(3));
B = zeros(m, n, p, 'like', A);
for k = 1:p
  for j = 1:n
    for i = 1:m
      B(i, j, k) = A(1 + (i - 1) * s1 + (j - 1) * s2 + (k - 1) * s3);
    end
  end
end
end
