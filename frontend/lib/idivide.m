function C = idivide(A, B, op)
%IDIVIDE  Integer division with a choice of rounding: A ./ B rounded toward zero ('fix', the
%   default), to the nearest ('round', halves away from zero), down ('floor') or up ('ceil'),
%   in the integer class of the operands (saturating; 0 / 0 gives 0). At least one operand
%   must be an integer, two integers of one class, the other a real double.
%   The quotient is computed in double, exact for integers of up to 32 bits; 64-bit integers
%   are refused. m2cu stops where Octave 7 differs from MATLAB: a 'fix' of a negative dividend
%   whose quotient is not whole (Octave 7 rounds it down for a positive divisor and up for a
%   negative one) and a nonzero value divided by zero.
if nargin < 3
  op = 'fix';
end
if ~isinteger(A) && ~isinteger(B)
  error('idivide: at least one input (X or Y) must be an integer type');
end
if (~isinteger(A) && ~isa(A, 'double')) || (~isinteger(B) && ~isa(B, 'double')) || ~isreal(A) || ~isreal(B)
  m2cu_refuse('`idivide` with an operand that is neither an integer nor a real double: MATLAB stops and Octave 7 divides', ...
              'convert that operand to the integer class of the other, or to double');
end
if isinteger(A) && isinteger(B) && ~strcmp(class(A), class(B))
  error('idivide: integer type of X (%s) must match integer type of Y (%s)', class(A), class(B));
end
if isa(A, 'int64') || isa(A, 'uint64') || isa(B, 'int64') || isa(B, 'uint64')
  m2cu_refuse('`idivide` of 64-bit integers: m2cu divides in double, which is not exact beyond 2^53', ...
              'divide 32-bit integers, or compute the quotient and remainder with integer arithmetic in a loop');
end
q = double(A) ./ double(B);
if any(isinf(q(:)))
  error('m2cu:idivide', 'm2cu: idivide of a nonzero value by zero: MATLAB gives the limit of the class and Octave 7 other values (intmax - 1 for ''floor'', -intmax for ''fix'')');
end
if strcmpi(op, 'fix')
  differs = double(A) < 0 & q ~= fix(q);
  if any(differs(:))
    error('m2cu:idivide', 'm2cu: idivide ''fix'' of a negative dividend whose quotient is not whole: MATLAB rounds toward zero, Octave 7 does not');
  end
  r = fix(q);
elseif strcmpi(op, 'round')
  r = round(q);
elseif strcmpi(op, 'floor')
  r = floor(q);
elseif strcmpi(op, 'ceil')
  r = ceil(q);
else
  error('idivide: unrecognized rounding type "%s"', op);
end
C = zeros(size(r), 'like', A(1) * B(1));
C(:) = r;
end
