function yi = interp1(x, y, xi, method)
%INTERP1  Linear interpolation of the points (x, y) at xi: yi has xi's shape, NaN outside
%   [min(x), max(x)], as MATLAB and Octave compute it (x increasing or decreasing; other
%   points, which Octave sorts first, stop).
%
%   m2cu's own MATLAB source: vectors x and y, the 'linear' method (the default) as Octave 7.3
%   evaluates it; each xi's interval found by bisection, a parallel loop.
if nargin == 4 && ~strcmpi(method, 'linear') && ~strcmpi(method, '*linear')
  error('m2cu:interp1', 'm2cu: interp1 with a method other than ''linear'' is not supported yet');
end
if ~isfloat(x) || ~isfloat(y) || ~isfloat(xi)
  m2cu_refuse('`interp1` of integer, logical or char values', 'convert first, `interp1(double(x), double(y), double(xi))`');
end
n = numel(x);
if ~isvector(y) || numel(y) ~= n
  error('m2cu:interp1', 'm2cu: interp1 needs vectors x and y of one length (a matrix y is not supported yet)');
end
if n < 2
  error('interp1: minimum of 2 points required in each dimension');
end
xs = x(:);
ys = y(:);
% Octave's order: the table as given, increasing or decreasing (no flip), a line per
% interval with the slope (y(i+1) - y(i)) / (x(i+1) - x(i)) evaluated as
% slope * (v - x(i)) + y(i), i the last point not past v (ppval of mkpp).
up = xs(n) > xs(1);
for k = 2:n
  if ~((up && xs(k) > xs(k - 1)) || (~up && xs(k) < xs(k - 1)))
    error('m2cu:interp1', 'm2cu: interp1 with points X that are not strictly increasing or decreasing (Octave sorts them, keeps jumps between equal points and carries NaN) is not supported yet; sort the points first, [x, p] = sort(x); y = y(p)');
  end
end
lowest = min(xs(1), xs(n));
highest = max(xs(1), xs(n));
yi = zeros(size(xi));
for k = 1:numel(xi)
  v = xi(k);
  if v >= lowest && v <= highest
    lo = 1;
    hi = n;
    while hi - lo > 1
      mid = floor((lo + hi) / 2);
      if (up && xs(mid) <= v) || (~up && xs(mid) >= v)
        lo = mid;
      else
        hi = mid;
      end
    end
    slope = (ys(lo + 1) - ys(lo)) / (xs(lo + 1) - xs(lo));
    yi(k) = slope * (v - xs(lo)) + ys(lo);
  else
    yi(k) = NaN;
  end
end
end
