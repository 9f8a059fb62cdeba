function Y = mpower(A, p)
%MPOWER  `A ^ p` with an array operand: MATLAB's matrix power. A 1-by-1 A and p (a scalar in
%   MATLAB) give the scalar power; a square matrix to a whole power p is the product of powers
%   by squaring, as Octave forms it (Y = B * Y for each set bit of |p|, B squared between them,
%   B = inv(A) for a negative p, the identity for 0), whose matrix products agree with
%   Octave's to rounding. A power that is not a whole number (eigenvalues) and a scalar to a
%   matrix power (a matrix exponential) stop the run. Complex and integer operands are
%   refused.
if ~isreal(A) || ~isreal(p)
  m2cu_refuse('`^` with a complex matrix (a complex matrix power) is not supported yet', ...
              'for the elementwise power write `.^`');
end
if isinteger(A) || isinteger(p)
  m2cu_refuse('`^` with an integer matrix (a matrix power) is not supported', ...
              'for the elementwise power write `.^`; for a matrix power convert first, as in `double(A) ^ 2`');
end
if numel(A) == 1 && numel(p) == 1
  Y = repmat(A(1) .^ p(1), 1, 1);
elseif numel(A) == 1
  error('m2cu:mpower', 'm2cu: a scalar to a matrix power (an exponential of a matrix) is not supported yet');
elseif numel(p) ~= 1 || ndims(A) > 2 || size(A, 1) ~= size(A, 2)
  error('MATLAB:mpower:notScalarAndSquareMatrix', 'Incorrect dimensions for raising a matrix to a power. Check that the matrix is square and the power is a scalar. To operate on each element of the matrix individually, use POWER (.^) for elementwise power.');
elseif ~isfinite(p(1)) || p(1) ~= fix(p(1))
  error('m2cu:mpower', 'm2cu: a matrix to a power that is not a whole number needs its eigenvalues, which m2cu does not compute yet');
else
  Y = whole_power(A, p(1));
end
end

function Y = whole_power(A, p)
% A ^ p for a square A and a whole p, by squaring.
if isa(A, 'single') || isa(p, 'single')
  B = single(A);
else
  B = double(A);
end
if p < 0
  B = inv(B);
end
q = abs(p);
if q == 0
  Y = eye(size(B, 1), 'like', B);
else
  Y = B;
  q = q - 1;
  while q > 0
    if mod(q, 2) == 1
      Y = B * Y;
    end
    q = floor(q / 2);
    if q > 0
      B = B * B;
    end
  end
end
end
