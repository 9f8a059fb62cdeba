function [w, iw] = m2cu_cumextreme(name, x, dim, dim_given, largest)
%M2CU_CUMEXTREME  The running maxima (minima unless LARGEST) of x along dim, with their
%   indices, for cummax and cummin; without DIM_GIVEN, along the first dimension whose extent
%   is not 1.
%   As MATLAB and Octave: NaN is skipped (w is NaN only before the first number of a line),
%   ties keep the first index (so -0 after 0 keeps 0), complex values compare by abs and then
%   by angle, w has the class of x and iw is double. Each column (row) is one iteration of a
%   parallel loop: the scan itself runs in order.
if ischar(x)
  error('%s: wrong type argument ''string''', name);
end
if ~dim_given
  dim = 1;
  if size(x, 1) == 1
    dim = 2;
  end
elseif ~(dim >= 1 && dim == floor(dim))
  error('%s: DIM must be a valid dimension', name);
end
if ndims(x) > 2
  error('m2cu:cumextreme', 'm2cu: %s of a 3-D array is not supported yet', name);
end
w = x;
iw = ones(size(x));
[m, n] = size(x);
if dim == 1
  for j = 1:n
    for i = 2:m
      if m2cu_replaces(x(i, j), w(i - 1, j), largest)
        iw(i, j) = i;
      else
        w(i, j) = w(i - 1, j);
        iw(i, j) = iw(i - 1, j);
      end
    end
  end
elseif dim == 2
  for i = 1:m
    for j = 2:n
      if m2cu_replaces(x(i, j), w(i, j - 1), largest)
        iw(i, j) = j;
      else
        w(i, j) = w(i, j - 1);
        iw(i, j) = iw(i, j - 1);
      end
    end
  end
end
end
