function r = m2cu_replaces(v, best, largest)
%M2CU_REPLACES  Whether v takes the place of the best value so far in a search for the largest
%   (smallest unless LARGEST) value, as MATLAB's max and min order values: a number after NaN,
%   or a strictly larger (smaller) one, so ties keep the first; NaN never does. Complex values
%   compare by abs, then by angle (a complex value is NaN when either part is). For cummax,
%   cummin and [m, k] = max(...).
if ~isreal(v) || ~isreal(best)
  r = beyond_complex(v, best, largest);
elseif isnan(v)
  r = false;
elseif isnan(best)
  r = true;
elseif largest
  r = v > best;
else
  r = v < best;
end
end

function r = beyond_complex(v, best, largest)
% Complex values: NaN as for reals, then in order of abs, then of angle.
if isnan(real(v)) || isnan(imag(v))
  r = false;
elseif isnan(real(best)) || isnan(imag(best))
  r = true;
elseif largest
  r = abs(v) > abs(best) || (abs(v) == abs(best) && angle(v) > angle(best));
else
  r = abs(v) < abs(best) || (abs(v) == abs(best) && angle(v) < angle(best));
end
end
